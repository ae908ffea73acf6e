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

// NewOrderCode draws a random order code as InsertOrder does.
func NewOrderCode() string { return newOrderCode() }

// SetOrderCodes makes InsertOrder draw its order codes from codes (then at random again) until restore is
// called, so a test can force a collision.
func SetOrderCodes(codes ...string) (restore func()) {
	saved := newOrderCode
	random := saved
	newOrderCode = func() string {
		if len(codes) == 0 {
			return random()
		}
		c := codes[0]
		codes = codes[1:]
		return c
	}
	return func() { newOrderCode = saved }
}
