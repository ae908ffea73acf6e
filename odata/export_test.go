package odata

import "time"

// SetRowHook makes collection reads call f after scanning each row; the returned function removes it.
func SetRowHook(f func()) (restore func()) {
	rowHook = f
	return func() { rowHook = nil }
}

// SetAsyncPoll sets how often a node looks whether another cancelled its asynchronous request; the returned
// function restores it.
func SetAsyncPoll(d time.Duration) (restore func()) {
	old := asyncPoll.Swap(int64(d))
	return func() { asyncPoll.Store(old) }
}

// Plural is the name of the entity set Config.Structs gives a struct type.
var Plural = plural
