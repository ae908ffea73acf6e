package storefront

// SetOrderCodes makes ConfirmOrder draw its order codes from codes (then at random again) until restore is
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
