#pragma once
// The lock of an object that several processes share in memory (pool/shared_memory.hpp: the
// workers' log rings, the host's record of calls in flight): process-shared, and robust, so that a
// process killed while it holds the lock does not wedge the others. The next locker takes the lock
// over, so the object guarded must be whole after each of its stores: it must never need the dead
// holder's unfinished work undone.
#include <pthread.h>

#include <cerrno>

namespace keeper::pool {

class process_shared_mutex {
public:
    process_shared_mutex() {
        pthread_mutexattr_t attr;
        pthread_mutexattr_init(&attr);
        pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
        pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
        pthread_mutex_init(&m_mutex, &attr);
        pthread_mutexattr_destroy(&attr);
    }
    ~process_shared_mutex() { pthread_mutex_destroy(&m_mutex); }
    process_shared_mutex(const process_shared_mutex&) = delete;
    process_shared_mutex& operator=(const process_shared_mutex&) = delete;

    void lock() {
        if (pthread_mutex_lock(&m_mutex) == EOWNERDEAD) pthread_mutex_consistent(&m_mutex);
    }
    void unlock() { pthread_mutex_unlock(&m_mutex); }

private:
    pthread_mutex_t m_mutex;
};

}  // namespace keeper::pool
