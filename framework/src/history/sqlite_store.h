// The results store on an SQLite file: the embedded default.
#ifndef PERFGATE_SRC_HISTORY_SQLITE_STORE_H_
#define PERFGATE_SRC_HISTORY_SQLITE_STORE_H_

#include <memory>
#include <string>

#include "perfgate/history/store.h"

namespace perfgate::history {

struct SqliteStoreOptions {
  // How long a writer waits for another's lock before history.locked: long enough for
  // 8 CI jobs appending at once.
  int lock_wait_ms = 60000;
};

// Opens or creates the store at `path`. A new or empty file gets the schema; a file
// holding other tables (an nsys export) is refused, never written into.
StatusOr<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path, SqliteStoreOptions options = {});

}  // namespace perfgate::history

#endif  // PERFGATE_SRC_HISTORY_SQLITE_STORE_H_
