// The results store on a PostgreSQL server: one history that many CI runners append
// to at once. Built only where libpq is found (framework/src/history/postgres.cmake).
#ifndef PERFGATE_SRC_HISTORY_POSTGRES_STORE_H_
#define PERFGATE_SRC_HISTORY_POSTGRES_STORE_H_

#include <memory>
#include <string>

#include "perfgate/history/store.h"

namespace perfgate::history {

// Opens the store of `url` (postgresql:// or postgres://, libpq's URL form), creating
// its tables or migrating them under an advisory lock, so that any number of processes
// may open a fresh database at once. Errors: history.bad_location (a URL libpq cannot
// parse; a database whose tables of perfgate's names are not perfgate's),
// history.unreachable, history.future_schema, history.read_only (no history yet and
// no right to create it). An append or a read whose connection was lost is run once
// more on a new connection; the run's key makes a retried append write it once.
StatusOr<std::unique_ptr<Store>> OpenPostgresStore(const std::string& url);

// `url` without its password (the userinfo's and any password= parameter's): what
// Location() and every message show.
std::string PostgresLocation(const std::string& url);

}  // namespace perfgate::history

#endif  // PERFGATE_SRC_HISTORY_POSTGRES_STORE_H_
