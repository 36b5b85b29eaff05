// An allocator that recycles the nodes of node-based containers (the DRAM timelines' std::map).
// Pure C++; see models/dram/README.md ("Timing").
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <new>
#include <utility>
#include <vector>

namespace vgpu::dram {

/// Single objects come from a free list of earlier ones of the same type, so a timeline that
/// books and forgets a node per request does not call the heap each time; arrays go to the
/// heap. Nodes are kept (and freed) until the process ends (their number is the largest
/// timeline's). Not thread-safe, as SystemC's processes are not threads.
template <class T> class node_pool_allocator {
public:
    using value_type = T; ///< allocated type

    node_pool_allocator() = default;
    /// Rebinding copy (std::map allocates its node type from the pair's allocator).
    template <class U> node_pool_allocator(const node_pool_allocator<U>&) noexcept {}

    /// Storage for `n` objects.
    T* allocate(std::size_t n)
    {
        auto& free = free_list();
        if (n == 1 && !free.empty()) {
            T* p = free.back();
            free.pop_back();
            return p;
        }
        return static_cast<T*>(::operator new(n * sizeof(T)));
    }
    /// Returns storage from allocate(n).
    void deallocate(T* p, std::size_t n)
    {
        if (n == 1)
            free_list().push_back(p);
        else
            ::operator delete(p);
    }
    /// All instances share the free lists: storage from one may be returned to another.
    template <class U> bool operator==(const node_pool_allocator<U>&) const { return true; }
    /// See operator==.
    template <class U> bool operator!=(const node_pool_allocator<U>&) const { return false; }

private:
    /// The recycled nodes, returned to the heap when the process ends.
    struct pool {
        std::vector<T*> nodes;
        ~pool()
        {
            for (T* p : nodes)
                ::operator delete(p);
        }
    };
    static std::vector<T*>& free_list()
    {
        static pool list;
        return list.nodes;
    }
};

/// A std::map whose nodes are recycled.
template <class K, class V>
using pooled_map = std::map<K, V, std::less<K>, node_pool_allocator<std::pair<const K, V>>>;

} // namespace vgpu::dram
