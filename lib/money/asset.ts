/** Asset codes (docs/api.md §1 "Names"): `USD`, `USD/2` (two decimals), `EUR_COL/12`. Shared by ledger and payments. */
export const ASSET = /^[A-Z][A-Z0-9]{0,16}(_[A-Z]{1,16})?(\/\d{1,6})?$/;
