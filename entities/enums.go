package entities

// Members of the enum type Store.ProductType (Product.ProductType).
const (
	ProductTypeSimpleProduct  = 5
	ProductTypeGroupedProduct = 10
)

// Members of the enum type Store.ManageInventoryMethod (Product.ManageInventoryMethod).
const (
	ManageInventoryMethodDontManageStock = 0
	ManageInventoryMethodManageStock     = 1
)

// Members of the enum type Store.LowStockActivity (Product.LowStockActivity).
const (
	LowStockActivityNothing          = 0
	LowStockActivityDisableBuyButton = 1
	LowStockActivityUnpublish        = 2
)

// Members of the enum type Store.BackorderMode (Product.BackorderMode).
const (
	BackorderModeNoBackorders   = 0
	BackorderModeAllowQtyBelow0 = 1
)

// Members of the enum type Store.OrderStatus (Order.OrderStatus).
const (
	OrderStatusPending    = 10
	OrderStatusProcessing = 20
	OrderStatusComplete   = 30
	OrderStatusCancelled  = 40
)

// Members of the enum type Store.PaymentStatus (Order.PaymentStatus).
const (
	PaymentStatusPending  = 10
	PaymentStatusPaid     = 30
	PaymentStatusRefunded = 40
	PaymentStatusVoided   = 50
)

// Members of the enum type Store.ShippingStatus (Order.ShippingStatus).
const (
	ShippingStatusShippingNotRequired = 10
	ShippingStatusNotYetShipped       = 20
	ShippingStatusShipped             = 30
	ShippingStatusDelivered           = 40
)

// System names of the customer roles created at first start. Their Name equals their SystemName.
const (
	RoleAdministrators = "Administrators"
	RoleRegistered     = "Registered"
	RoleGuests         = "Guests"
)
