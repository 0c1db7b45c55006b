#pragma once
// One T in anonymous shared memory. The supervisor maps it before it forks, so every worker (and
// every replacement worker) and the supervisor see the same object: the metrics block, a
// worker's log ring. T is built in place and must work across processes (atomics, a
// process-shared mutex), since no copy is ever made.
#include <sys/mman.h>

#include <new>
#include <stdexcept>
#include <string>

namespace keeper::pool {

template <typename T>
class in_shared_memory {
public:
    // `what` names the object in the error when the mapping fails.
    explicit in_shared_memory(const char* what) {
        void* memory = mmap(nullptr, sizeof(T), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (memory == MAP_FAILED) throw std::runtime_error(std::string{"cannot map shared memory for "} + what);
        m_object = new (memory) T{};
    }
    ~in_shared_memory() {
        m_object->~T();
        munmap(m_object, sizeof(T));
    }
    in_shared_memory(const in_shared_memory&) = delete;
    in_shared_memory& operator=(const in_shared_memory&) = delete;

    T& get() { return *m_object; }

private:
    T* m_object;  // not owning in the C++ sense: the destructor ends it and releases the mapping
};

}  // namespace keeper::pool
