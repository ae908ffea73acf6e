package plan

// SetDeepSkip sets the $skip from which pages are read in two steps, for a test, and returns the restore.
func SetDeepSkip(n int64) (restore func()) {
	old := deepSkip
	deepSkip = n
	return func() { deepSkip = old }
}
