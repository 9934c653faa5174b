// Event records, for a backend whose NativeEvent is a record of its own: a native event with the
// reference count edgemem's events share (the ordering table's entry and the caller's Event hold one
// native reference between them, so recording a command costs an atomic, not a driver call), kept in
// a process-wide cache so a steady stream of async commands allocates nothing (issue #28).
//
// Records are cached per key (a native context, or one key for all when a record belongs to none):
// a key's first user (context_create, a retained context_adopt) makes kPerKey of them, its records
// are kept for reuse while it has users (records made beyond those join them), and its last user
// (context_release) destroys the cached ones. A record taken for a key nobody pooled is destroyed
// when it comes back.
//
// Ops: using Record (with `std::atomic<std::uint32_t> refs` and `bool pooled`) and Key (a pointer);
//   static Result<Record*> make(Key) (Errc: out_of_host_memory, or the driver's answer);
//   static void destroy(Record*); static Key key_of(const Record&).
#pragma once
#include <cstddef>
#include <cstdint>
#include <mutex>

#include <edgemem/result.hpp>

#include "core/lock.hpp"

namespace edgemem::contract {

template <class Ops>
class EventRecords {
 public:
  using Record = typename Ops::Record;
  using Key = typename Ops::Key;

  static constexpr std::size_t kCached = 1024;  ///< records kept for reuse, process-wide
  static constexpr int kPerKey = 32;            ///< made for a key's first user
  static constexpr std::size_t kKeys = 16;      ///< keys whose records are cached at once

  /// A record for a command about to be enqueued under `key`, with one reference: a cached one, else a
  /// new one. Errc: out_of_host_memory, or the driver's answer (Ops::make).
  [[nodiscard]] static Result<Record*> take(Key key) noexcept {
    bool pooled = false;
    {
      Cache& c = cache();
      std::lock_guard<detail::Lock> guard(c.lock);
      for (std::size_t i = c.count; i-- > 0;) {
        if (Ops::key_of(*c.records[i]) != key) continue;
        Record* e = c.records[i];
        c.records[i] = c.records[--c.count];
        e->refs.store(1, std::memory_order_relaxed);
        return e;
      }
      const Users* u = users_of(c, key);
      pooled = u != nullptr && u->key == key && u->count > 0;
    }
    // None cached: a new record, which joins the cache when it comes back while its key is pooled, so
    // the records in use at once (tables of several queues, events users hold) are made once.
    EDGEMEM_TRY_ASSIGN(Record * e, Ops::make(key));
    e->pooled = pooled;
    return e;
  }

  /// One more reference to `e` (null: nothing).
  static void retain(Record* e) noexcept {
    if (e != nullptr) e->refs.fetch_add(1, std::memory_order_relaxed);
  }

  /// One less reference to `e`; true when it was the last (the caller then gives it back).
  [[nodiscard]] static bool unref(Record* e) noexcept {
    return e != nullptr && e->refs.fetch_sub(1, std::memory_order_acq_rel) == 1;
  }

  /// Gives a record back (its last reference went, or it was never handed out): kept while its key
  /// is pooled and the cache has room, else destroyed.
  static void give_back(Record* e) noexcept {
    if (e == nullptr) return;
    if (e->pooled) {
      Cache& c = cache();
      std::lock_guard<detail::Lock> guard(c.lock);
      const Users* u = users_of(c, Ops::key_of(*e));
      if (u != nullptr && u->key == Ops::key_of(*e) && u->count > 0 && c.count < kCached) {
        c.records[c.count++] = e;
        return;
      }
    }
    Ops::destroy(e);
  }

  /// One more user of `key`; the first makes its kPerKey records. With kKeys keys pooled already,
  /// `key`'s records are made per command. Errc: as Ops::make (nothing changed).
  [[nodiscard]] static Result<void> pool(Key key) noexcept {
    Cache& c = cache();
    {
      std::lock_guard<detail::Lock> guard(c.lock);
      Users* u = users_of(c, key);
      if (u == nullptr) return {};
      if (u->count > 0) {
        ++u->count;
        return {};
      }
    }
    Record* made[kPerKey] = {};  // made outside the lock; a failure destroys those made
    for (int i = 0; i < kPerKey; ++i) {
      auto e = Ops::make(key);
      if (!e) {
        for (int j = 0; j < i; ++j) Ops::destroy(made[j]);
        return fail(e.error());
      }
      (*e)->pooled = true;
      made[i] = *e;
    }
    std::lock_guard<detail::Lock> guard(c.lock);
    Users* u = users_of(c, key);
    const bool first = u != nullptr && u->count == 0;
    if (u != nullptr) {
      u->key = key;
      ++u->count;
    }
    for (Record* e : made) {
      if (first && c.count < kCached) c.records[c.count++] = e;
      else Ops::destroy(e);  // another thread pooled the key meanwhile, or no room
    }
    return {};
  }

  /// One less user of `key` (a pooled one); the last destroys its cached records.
  static void drain(Key key) noexcept {
    Cache& c = cache();
    std::lock_guard<detail::Lock> guard(c.lock);
    Users* u = users_of(c, key);
    if (u == nullptr || u->key != key || u->count == 0 || --u->count > 0) return;
    u->key = Key{};
    for (std::size_t i = c.count; i-- > 0;) {
      if (Ops::key_of(*c.records[i]) != key) continue;
      Ops::destroy(c.records[i]);
      c.records[i] = c.records[--c.count];
    }
  }

 private:
  /// How many users a key has (several contexts may share one native context).
  struct Users {
    Key key{};
    std::size_t count = 0;
  };

  // The lock, the count and the first keys share a cache line: a command takes a record and gives its
  // replaced entry's back, each touching that line and one slot (the last: the record just given back).
  struct Cache {
    detail::Lock lock;
    std::size_t count = 0;
    Users users[kKeys] = {};
    Record* records[kCached] = {};
  };

  static Cache& cache() noexcept {
    static Cache c;
    return c;
  }

  /// The Users entry of `key`, or an unused one, or null when every entry is in use. Under the lock.
  static Users* users_of(Cache& c, Key key) noexcept {
    Users* unused = nullptr;
    for (Users& u : c.users) {
      if (u.count > 0 && u.key == key) return &u;
      if (u.count == 0 && unused == nullptr) unused = &u;
    }
    return unused;
  }
};

}  // namespace edgemem::contract
