// A blocking queue between threads: std::mutex and two
// std::condition_variable, at most `capacity` items (0: no bound). push and
// pop say whether they had to wait (the workloads' `blocked` evidence).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>

template <class T>
class blocking_queue
{
  public:
    explicit blocking_queue(size_t capacity = 0) : capacity_(capacity) {}

    bool push(T item)
    {
        std::unique_lock held(lock_);
        bool waited = full();
        not_full_.wait(held, [this] { return !full(); });
        items_.push_back(std::move(item));
        not_empty_.notify_one();
        return waited;
    }

    bool pop(T &item)
    {
        std::unique_lock held(lock_);
        bool waited = items_.empty();
        not_empty_.wait(held, [this] { return !items_.empty(); });
        item = std::move(items_.front());
        items_.pop_front();
        not_full_.notify_one();
        return waited;
    }

  private:
    bool full() const { return capacity_ && items_.size() >= capacity_; }

    size_t capacity_;
    std::mutex lock_;
    std::condition_variable not_empty_, not_full_;
    std::deque<T> items_;
};
