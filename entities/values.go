package entities

// moneyScale is the scale of Edm.Decimal money columns (NUMERIC(19,4); SQLite stores value x 10^4).
const moneyScale = 4
