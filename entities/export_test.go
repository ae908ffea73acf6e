package entities

import "golang.org/x/crypto/bcrypt"

// Tests hash with the smallest bcrypt cost: the cost is read from each stored hash, so behaviour is the same, and
// the race detector makes the default cost slow.
func init() { bcryptCost = bcrypt.MinCost }

// SetCheckPassword replaces the password check of Login until the returned function restores it.
func SetCheckPassword(f func(hash, password string) bool) (restore func()) {
	old := checkPassword
	checkPassword = f
	return func() { checkPassword = old }
}
