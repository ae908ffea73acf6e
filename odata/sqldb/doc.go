// Package sqldb is the SQL toolkit of the odata engine for the code that runs its own SQL on the same database:
// plug-ins (hooks and actions of odata.Service, the store's entities and storefront), migrations and the
// database adapters odata/sqlite and odata/postgres.
//
// A Dialect holds every difference between the supported databases; each adapter implements it. Around it the
// package offers statements written once for both databases (NewStatement, Builder), the conversions of values
// between Go and columns (Arg and Scan, with TimeArg, ScanTime, DecimalArg and ScanDecimal for hand-written
// SQL; odata/DESIGN.md's storage table) and the classes of driver errors callers act on (ErrorClass).
package sqldb
