package odata

// SetRowHook makes collection reads call f after scanning each row; the returned function removes it.
func SetRowHook(f func()) (restore func()) {
	rowHook = f
	return func() { rowHook = nil }
}
