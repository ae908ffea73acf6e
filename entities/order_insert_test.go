package entities_test

import (
	"context"
	"database/sql"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/sqldb"
)

var orderCodePattern = regexp.MustCompile(`^[A-Z0-9]{8}$`)

func TestOrderCode(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		c := entities.NewOrderCode()
		if !orderCodePattern.MatchString(c) {
			t.Fatalf("newOrderCode() = %q, want 8 characters of [A-Z0-9]", c)
		}
		seen[c] = true
	}
	if len(seen) < 999 {
		t.Errorf("1000 codes had %d distinct values", len(seen))
	}
}

// testOrder is an order of two items, billed to an address and shipped by a shipping method.
func testOrder() entities.Order {
	billing := entities.Address{FirstName: "Ann", LastName: "Lee", Email: "ann@example.com", CountryID: "US",
		City: "Springfield", Address1: "1 Main St", ZipPostalCode: "12345", PhoneNumber: "555"}
	return entities.Order{CustomerID: "c1", CustomerEmail: "ann@example.com",
		ShippingStatus: entities.ShippingStatusNotYetShipped, PaymentMethodSystemName: "Payments.CheckMoneyOrder",
		ShippingMethod: "Ground", ShippingRateProviderSystemName: "Shipping.FixedRate",
		OrderSubtotal: decimal.RequireFromString("70.00"), OrderShipping: decimal.RequireFromString("10.00"),
		PaymentMethodAdditionalFee: decimal.RequireFromString("1.97"), OrderTotal: decimal.RequireFromString("81.97"),
		BillingAddress: billing, ShippingAddress: &billing,
		CreatedOnUtc: time.Date(2030, 6, 15, 12, 0, 0, 0, time.UTC),
		Items: []entities.OrderItem{
			{ProductID: "p1", ProductName: "Book", Sku: "B-1", Quantity: 2, UnitPrice: decimal.RequireFromString("30.00"),
				Price: decimal.RequireFromString("60.00")},
			{ProductID: "p2", ProductName: "Pen", Quantity: 1, UnitPrice: decimal.RequireFromString("10.00"),
				Price: decimal.RequireFromString("10.00")},
		}}
}

func insertOrder(t *testing.T, db *dbtest.DB, o entities.Order) (entities.Order, error) {
	t.Helper()
	var placed entities.Order
	err := inTx(t, db, func(ctx context.Context, tx *sqldb.Tx) error {
		var err error
		placed, err = entities.InsertOrder(ctx, tx, o)
		return err
	})
	return placed, err
}

func TestInsertOrder(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		migrated(t, db)
		t.Run("OK", func(t *testing.T) {
			o, err := insertOrder(t, db, testOrder())
			if err != nil {
				t.Fatalf("InsertOrder() = %v", err)
			}
			if o.OrderNumber != 1 || len(o.ID) != 24 || !orderCodePattern.MatchString(o.Code) {
				t.Errorf("InsertOrder() = ID %q, number %d, code %q, want a new ID, 1 and 8 letters and digits", o.ID, o.OrderNumber, o.Code)
			}
			var (
				number                                  int64
				code, status, payment, method, shipCity string
				shipping                                int
				total, created                          any
				company                                 sql.NullString
			)
			if err := db.QueryRow(q(db, `SELECT order_number, code, order_status, payment_status, shipping_status,
	shipping_method, order_total, billing_address_company, shipping_address_city, created_on_utc FROM "order" WHERE id = ?`), o.ID).
				Scan(&number, &code, &status, &payment, &shipping, &method, &total, &company, &shipCity, &created); err != nil {
				t.Fatal(err)
			}
			gotTotal, err := sqldb.ScanDecimal(total, 4)
			if err != nil {
				t.Fatal(err)
			}
			gotCreated, err := sqldb.ScanTime(created)
			if err != nil {
				t.Fatal(err)
			}
			got := []any{number, code, status, payment, shipping, method, gotTotal.String(), company.Valid, shipCity, gotCreated}
			want := []any{int64(1), o.Code, "10", "10", entities.ShippingStatusNotYetShipped, "Ground", "81.97", false,
				"Springfield", time.Date(2030, 6, 15, 12, 0, 0, 0, time.UTC)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("order row (-want +got):\n%s", diff)
			}
			if n := count(t, db, `SELECT COUNT(*) FROM order_item WHERE order_id = ? AND (sku IS NOT NULL OR product_id = 'p2')`, o.ID); n != 2 {
				t.Errorf("order items = %d, want 2, the second without a SKU", n)
			}
		})
		t.Run("OKNotShipped", func(t *testing.T) {
			o := testOrder()
			o.ShippingStatus, o.ShippingMethod, o.ShippingRateProviderSystemName, o.ShippingAddress =
				entities.ShippingStatusShippingNotRequired, "", "", nil
			placed, err := insertOrder(t, db, o)
			if err != nil {
				t.Fatalf("InsertOrder() = %v", err)
			}
			if placed.OrderNumber != 2 {
				t.Errorf("InsertOrder().OrderNumber = %d, want 2", placed.OrderNumber)
			}
			if n := count(t, db, `SELECT COUNT(*) FROM "order" WHERE id = ? AND shipping_method IS NULL
	AND shipping_address_first_name IS NULL AND shipping_status = ?`, placed.ID, entities.ShippingStatusShippingNotRequired); n != 1 {
				t.Errorf("order without shipping = %d rows with NULL shipping columns, want 1", n)
			}
		})
		t.Run("OKCodeCollisionDrawsAgain", func(t *testing.T) {
			var taken string
			if err := db.QueryRow(`SELECT code FROM "order" ORDER BY order_number LIMIT 1`).Scan(&taken); err != nil {
				t.Fatal(err)
			}
			restore := entities.SetOrderCodes(taken, taken, "ZZZZ0000")
			defer restore()
			o, err := insertOrder(t, db, testOrder())
			if err != nil || o.Code != "ZZZZ0000" {
				t.Errorf("InsertOrder() = code %q, %v, want ZZZZ0000 after two collisions", o.Code, err)
			}
		})
		t.Run("ErrCodesTaken", func(t *testing.T) {
			codes := make([]string, 10)
			for i := range codes {
				codes[i] = "ZZZZ0000"
			}
			restore := entities.SetOrderCodes(codes...)
			defer restore()
			before := count(t, db, `SELECT COUNT(*) FROM "order"`)
			if _, err := insertOrder(t, db, testOrder()); err == nil {
				t.Error("InsertOrder() with every code taken = nil, want an error")
			}
			if after := count(t, db, `SELECT COUNT(*) FROM "order"`); after != before {
				t.Errorf("orders after a failed InsertOrder = %d, want %d", after, before)
			}
		})
		t.Run("ErrAmountOutOfRange", func(t *testing.T) {
			o := testOrder()
			o.OrderTotal = decimal.RequireFromString("1000000000000000")
			if _, err := insertOrder(t, db, o); err == nil {
				t.Error("InsertOrder() with a total past the money range = nil, want an error")
			}
		})
	})
}

func TestTakeStock(t *testing.T) {
	const managed = entities.ManageInventoryMethodManageStock
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		migrated(t, db)
		for _, tc := range []struct {
			name             string
			stock, backorder int
			quantity         int64
			wantTaken        bool
			wantOnHand       int64
			want             []any // stock, sold, published, disable_buy_button
		}{
			{"OK", 5, entities.BackorderModeNoBackorders, 2, true, 0, []any{3, 12, true, false}},
			{"OKAll", 2, entities.BackorderModeNoBackorders, 2, true, 0, []any{0, 12, true, false}},
			{"OKBelowZero", 1, entities.BackorderModeAllowQtyBelow0, 3, true, 0, []any{-2, 13, true, false}},
			{"Short", 1, entities.BackorderModeNoBackorders, 2, false, 1, []any{1, 10, true, false}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				id := "p-" + tc.name
				exec(t, db, `INSERT INTO product (id, name, manage_inventory_method, stock_quantity, sold, backorder_mode)
	VALUES (?, 'P', ?, ?, 10, ?)`, id, managed, tc.stock, tc.backorder)
				var taken bool
				var onHand int64
				if err := inTx(t, db, func(ctx context.Context, tx *sqldb.Tx) error {
					var err error
					taken, onHand, err = entities.TakeStock(ctx, tx, id, tc.quantity, now)
					return err
				}); err != nil {
					t.Fatalf("TakeStock() = %v", err)
				}
				if taken != tc.wantTaken || onHand != tc.wantOnHand {
					t.Errorf("TakeStock(%d of %d) = %v, %d, want %v, %d", tc.quantity, tc.stock, taken, onHand, tc.wantTaken, tc.wantOnHand)
				}
				if diff := cmp.Diff(tc.want, productStock(t, db, id)); diff != "" {
					t.Errorf("product after TakeStock (-want +got):\n%s", diff)
				}
			})
		}
		t.Run("AddSold", func(t *testing.T) {
			exec(t, db, `INSERT INTO product (id, name, stock_quantity, sold) VALUES ('unmanaged', 'P', 5, 10)`)
			if err := inTx(t, db, func(ctx context.Context, tx *sqldb.Tx) error {
				return entities.AddSold(ctx, tx, "unmanaged", 3, now)
			}); err != nil {
				t.Fatalf("AddSold() = %v", err)
			}
			if diff := cmp.Diff([]any{5, 13, true, false}, productStock(t, db, "unmanaged")); diff != "" {
				t.Errorf("product after AddSold (-want +got):\n%s", diff)
			}
		})
	})
}

func TestAddPurchasedRoles(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		migrated(t, db)
		exec(t, db, `INSERT INTO customer (id, email) VALUES ('c1', 'c1@example.com')`)
		exec(t, db, `INSERT INTO product (id, name) VALUES ('p1', 'P1'), ('p2', 'P2'), ('p3', 'P3')`)
		exec(t, db, `INSERT INTO customer_role (id, name, purchased_with_product_id) VALUES ('r1', 'R1', 'p1'),
	('r2', 'R2', 'p2'), ('r3', 'R3', 'p3'), ('r4', 'R4', NULL)`)
		exec(t, db, `INSERT INTO customer_role_mapping (customer_id, customer_role_id, ordinal) VALUES ('c1', 'r4', 0), ('c1', 'r2', 1)`)
		if err := inTx(t, db, func(ctx context.Context, tx *sqldb.Tx) error {
			return entities.AddPurchasedRoles(ctx, tx, "c1", []string{"p1", "p2"})
		}); err != nil {
			t.Fatalf("AddPurchasedRoles() = %v", err)
		}
		rows, err := db.Query(`SELECT customer_role_id FROM customer_role_mapping WHERE customer_id = 'c1' ORDER BY ordinal`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var got []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			got = append(got, id)
		}
		if diff := cmp.Diff([]string{"r4", "r2", "r1"}, got); diff != "" {
			t.Errorf("roles after AddPurchasedRoles(p1, p2) (-want +got):\n%s", diff)
		}
	})
}
