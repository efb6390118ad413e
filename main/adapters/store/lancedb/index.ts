/** The LanceDB store's public API (the code is in store.ts until it is split by concern). */
export { openLanceStore, filterToSql, sqlString, subtreePredicate, type AnnKind, type LanceStoreOptions } from './store.js';
