package main

import (
	"context"
	"time"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/edm"
)

// Fixed keys of the seed rows, so that a reseed restores the same entities at the same URLs.
const (
	electronicsID = "c1000000-0000-4000-8000-000000000001"
	kitchenID     = "c1000000-0000-4000-8000-000000000002"
	furnitureID   = "c1000000-0000-4000-8000-000000000003"

	laptopID        = "a1000000-0000-4000-8000-000000000001"
	mouseID         = "a1000000-0000-4000-8000-000000000002"
	mugID           = "a1000000-0000-4000-8000-000000000003"
	chairID         = "a1000000-0000-4000-8000-000000000004"
	smartphoneID    = "a1000000-0000-4000-8000-000000000005"
	premiumLaptopID = "a1000000-0000-4000-8000-000000000006"
	gamingMouseID   = "a1000000-0000-4000-8000-000000000007"

	decimalSampleID = "f1000000-0000-4000-8000-000000000001"
)

// seed is the reference data of CONTRACT.md: each entity type (in insertion order: targets of foreign keys
// first) with its rows.
type seed struct {
	typeName string
	rows     []odata.Entity
}

func seedRows(now time.Time) []seed {
	return []seed{
		{"Category", []odata.Entity{
			{"ID": electronicsID, "Name": "Electronics", "Description": "Electronic devices and accessories"},
			{"ID": kitchenID, "Name": "Kitchen", "Description": "Kitchen appliances and utensils"},
			{"ID": furnitureID, "Name": "Furniture", "Description": "Home and office furniture"},
		}},
		{"Product", seedProducts()},
		{"ProductDescription", seedDescriptions()},
		{"CompanyInfo", []odata.Entity{{
			"ID": "e1000000-0000-4000-8000-000000000001", "Name": "TechStore Inc.", "CEO": "Sarah Johnson",
			"Founded": int64(2010), "HeadQuarter": "Seattle, WA, USA", "Website": "https://techstore.example.com",
			"Logo": []byte(companyLogo), "Version": int64(1), "UpdatedAt": now,
		}}},
		{"MediaItem", []odata.Entity{
			{"ID": "d1000000-0000-4000-8000-000000000001", "Name": "Sample Image", "ContentType": "image/png",
				"Size": int64(1024), "Content": []byte("fake-png-binary-data"), "CreatedAt": now, "ModifiedAt": now},
			{"ID": "d1000000-0000-4000-8000-000000000002", "Name": "Sample Document", "ContentType": "application/pdf",
				"Size": int64(2048), "Content": []byte("fake-pdf-binary-data"), "CreatedAt": now, "ModifiedAt": now},
		}},
		{"ReadOnlyItem", []odata.Entity{
			{"ID": "b1000000-0000-4000-8000-000000000001", "Name": "Read-only item A"},
			{"ID": "b1000000-0000-4000-8000-000000000002", "Name": "Read-only item B"},
		}},
		// Amount is a Decimal(38,18): exact decimal text on SQLite, NUMERIC(38,18) on PostgreSQL.
		{"DecimalSample", []odata.Entity{
			{"ID": decimalSampleID, "Name": "Seed Decimal", "Amount": decimal.RequireFromString("123.450000000000000000")},
		}},
		restrictedSeed(),
		hierarchySeed(),
	}
}

const companyLogo = `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" viewBox="0 0 100 100">
  <rect width="100" height="100" fill="#4A90E2"/>
  <text x="50" y="55" font-family="Arial" font-size="24" fill="white" text-anchor="middle">TS</text>
</svg>`

func address(street, city, state, postalCode string) map[string]any {
	return map[string]any{"Street": street, "City": city, "State": state, "PostalCode": postalCode, "Country": "USA"}
}

func dimensions(length, width, height float64) map[string]any {
	return map[string]any{"Length": length, "Width": width, "Height": height, "Unit": "cm"}
}

func date(year int, month time.Month, day int) edm.Date {
	return edm.Date{Year: year, Month: month, Day: day}
}

func utc(year int, month time.Month, day, hour, minute int) time.Time {
	return time.Date(year, month, day, hour, minute, 0, 0, time.UTC)
}

const day = 24 * time.Hour

func seedProducts() []odata.Entity {
	return []odata.Entity{
		{"ID": laptopID, "Name": "Laptop", "Price": 999.99, "Rating": int64(200), "Temperature": int64(-10),
			"Quantity": int64(1200), "Weight": 3.14, "Data": []byte("test"), "ReleaseDate": date(2024, 1, 15),
			"OpenTime": edm.NewTimeOfDay(9, 30, 0, 0), "ShippingTime": day, "ProcessingTime": 45 * time.Second,
			"Offset": time.Duration(0), "CategoryID": electronicsID, "Status": statusInStock | statusFeatured,
			"CreatedAt": utc(2024, 1, 15, 10, 30), "ProductType": "SpecialProduct",
			"SpecialProperty": "Extended warranty included", "SpecialFeature": "Premium support",
			"ShippingAddress": address("123 Tech Way", "Seattle", "WA", "98101"), "Dimensions": dimensions(35.5, 25, 2.5),
			"Tags": []any{"portable", "electronics"}},
		{"ID": mouseID, "Name": "Wireless Mouse", "Price": 29.99, "Rating": int64(110), "Temperature": int64(5),
			"Quantity": int64(300), "Weight": 0.09, "Data": []byte{1, 2, 3}, "ReleaseDate": date(2024, 1, 20),
			"OpenTime": edm.NewTimeOfDay(8, 15, 0, 0), "ShippingTime": 2 * time.Hour,
			"ProcessingTime": 1500 * time.Millisecond, "Offset": -day, "CategoryID": electronicsID,
			"Status": statusInStock | statusOnSale, "CreatedAt": utc(2024, 3, 20, 14, 45),
			"ShippingAddress": address("456 Innovation Blvd", "San Francisco", "CA", "94102"),
			"Dimensions":      dimensions(10, 6, 4)},
		{"ID": mugID, "Name": "Coffee Mug", "Price": 15.50, "Rating": int64(0), "Temperature": int64(-5),
			"Quantity": int64(-200), "Weight": 0.0, "Data": []byte{}, "ReleaseDate": date(2024, 1, 1),
			"OpenTime": edm.NewTimeOfDay(0, 0, 0, 0), "ShippingTime": 2 * day, "ProcessingTime": 30 * time.Minute,
			"Offset": time.Duration(0), "CategoryID": kitchenID, "Status": statusInStock,
			"CreatedAt":       utc(2023, 11, 5, 9, 15),
			"ShippingAddress": address("789 Home St", "Portland", "OR", "97201"), "Dimensions": dimensions(8, 8, 10)},
		{"ID": chairID, "Name": "Office Chair", "Price": 249.99, "Rating": int64(255), "Temperature": int64(127),
			"Quantity": int64(32767), "Weight": 150.0, "ReleaseDate": date(2024, 12, 31),
			"OpenTime": edm.NewTimeOfDay(23, 59, 59, 0), "ShippingTime": day + 2*time.Hour + 30*time.Minute,
			"ProcessingTime": 45 * time.Second, "Offset": time.Duration(0), "CategoryID": furnitureID,
			"Status": statusDiscontinued, "CreatedAt": utc(2023, 8, 12, 16, 20)},
		{"ID": smartphoneID, "Name": "Smartphone", "Price": 799.99, "CategoryID": electronicsID,
			"Status": statusInStock | statusOnSale | statusFeatured, "CreatedAt": utc(2024, 6, 28, 11, 0),
			"ShippingAddress": address("321 Mobile Ave", "Austin", "TX", "78701"), "Dimensions": dimensions(15, 7.5, 0.8)},
		{"ID": premiumLaptopID, "Name": "Premium Laptop Pro", "Price": 1999.99, "CategoryID": electronicsID,
			"Status": statusInStock | statusFeatured, "CreatedAt": utc(2024, 7, 1, 10, 0), "ProductType": "SpecialProduct",
			"SpecialProperty": "Extended 5-year warranty", "SpecialFeature": "Premium support package",
			"ShippingAddress": address("999 Premium Way", "New York", "NY", "10001"), "Dimensions": dimensions(40, 28, 2)},
		{"ID": gamingMouseID, "Name": "Gaming Mouse Ultra", "Price": 149.99, "CategoryID": electronicsID,
			"Status": statusInStock | statusOnSale, "CreatedAt": utc(2024, 7, 15, 14, 30), "ProductType": "SpecialProduct",
			"SpecialProperty": "RGB lighting with 16 million colors", "SpecialFeature": "Customizable DPI settings",
			"ShippingAddress": address("888 Gaming Blvd", "Los Angeles", "CA", "90001"),
			"Dimensions":      dimensions(12.5, 7.5, 4.5)},
	}
}

func seedDescriptions() []odata.Entity {
	description := func(productID, language, text, long string) odata.Entity {
		return odata.Entity{"ProductID": productID, "LanguageKey": language, "Description": text, "LongText": long}
	}
	promo := description(laptopID, "EN", "High-performance laptop for productivity and gaming",
		"This state-of-the-art laptop features the latest processor technology, dedicated graphics card, and ample "+
			"RAM to handle all your computing needs. Perfect for both professional work and entertainment.")
	promo["CustomName"] = "Promo"
	return []odata.Entity{
		promo,
		description(laptopID, "DE", "Hochleistungs-Laptop für Produktivität und Gaming",
			"Dieser hochmoderne Laptop verfügt über die neueste Prozessortechnologie, eine dedizierte Grafikkarte und "+
				"reichlich RAM, um alle Ihre Computeranforderungen zu erfüllen. Perfekt für berufliche Arbeit und Unterhaltung."),
		description(mouseID, "EN", "Ergonomic wireless mouse with precision tracking",
			"Experience comfort and precision with this wireless mouse. Features adjustable DPI settings, long battery "+
				"life, and a contoured design that fits perfectly in your hand."),
		description(mouseID, "FR", "Souris sans fil ergonomique avec suivi de précision",
			"Découvrez le confort et la précision avec cette souris sans fil. Dispose de paramètres DPI réglables, "+
				"d'une longue durée de vie de la batterie et d'un design profilé qui s'adapte parfaitement à votre main."),
		description(mugID, "EN", "Ceramic coffee mug with heat retention technology",
			"Keep your beverages at the perfect temperature with this innovative ceramic mug. The double-wall "+
				"construction provides excellent insulation while remaining comfortable to hold."),
		description(smartphoneID, "EN", "Latest generation smartphone with advanced camera",
			"Capture life's moments in stunning detail with our flagship smartphone. Features a professional-grade "+
				"camera system, lightning-fast processor, and all-day battery life."),
		description(smartphoneID, "ES", "Smartphone de última generación con cámara avanzada",
			"Captura los momentos de la vida con un detalle asombroso con nuestro smartphone insignia. Cuenta con un "+
				"sistema de cámara de nivel profesional, procesador ultrarrápido y batería para todo el día."),
	}
}

// reseed empties every table of the model and inserts the seed rows, in the action's transaction.
func reseed(ctx context.Context, tx *odata.Tx) error {
	rows := seedRows(time.Now().UTC())
	// Link rows first, then the tables in the reverse order of the seed (rows that refer to others go first).
	if _, err := tx.ExecContext(ctx, "DELETE FROM "+tx.Dialect().QuoteIdent(relationTable)); err != nil {
		return err
	}
	tables := allTables(tx.Model)
	for i := len(tables) - 1; i >= 0; i-- {
		// The side tables of collection properties refer to their owner's rows: they go first.
		for _, p := range tables[i].Properties {
			if !p.Collection {
				continue
			}
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+tx.Dialect().QuoteIdent(p.CollectionTable.Table)); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+tx.Dialect().QuoteIdent(tables[i].Table)); err != nil {
			return err
		}
	}
	for _, s := range rows {
		for _, e := range s.rows {
			et := tx.Model.EntityType(s.typeName)
			if name, ok := e["ProductType"].(string); ok {
				et = tx.Model.EntityType(name) // a SpecialProduct
			}
			e = complete(et, e)
			if err := tx.Insert(ctx, et, e); err != nil {
				return err
			}
		}
	}
	return nil
}

// complete fills the values a seed row leaves to the model's defaults (ProductType, Version), gives the collections
// it does not name no items and sets the nullable properties it does not name to null.
func complete(et *edm.EntityType, e odata.Entity) odata.Entity {
	out := odata.Entity{}
	for _, p := range et.Properties {
		v, ok := e[p.Name]
		switch {
		case ok:
		case p.Collection:
			v = []any{}
		case p.Name == "Version":
			v = int64(1)
		case p.Default != nil:
			v = p.Default
		case p.Enum != nil || p.Type == edm.KindByte || p.Type == edm.KindSByte || p.Type == edm.KindInt16 ||
			p.Type == edm.KindInt32 || p.Type == edm.KindInt64:
			if !p.Nullable {
				v = int64(0)
			}
		case p.Type == edm.KindDouble || p.Type == edm.KindSingle:
			if !p.Nullable {
				v = 0.0
			}
		}
		out[p.Name] = v
	}
	return out
}
