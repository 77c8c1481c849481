// What two threads handing buffers to each other need: a mutex with the one condition its
// holders wait on, and a thread started on a closure. The read-ahead thread (ReadAhead) and
// Pipeline's decoding thread (PacketPipe) both use them.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A mutex and a condition variable: the state it guards changes only with it held, and a
/// thread waiting for a change waits on it (``wait()``) until another ``signal()``s.
///
/// `@unchecked Sendable`: its only state is the two pthread objects, which exist to be shared.
public final class HandOffLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let changed: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        changed = .allocate(capacity: 1)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        changed.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Waits for a ``signal()``, the lock held (released while waiting, held again on return;
    /// callers wait in a loop on their own condition, as wake-ups may be spurious).
    public func wait() { pthread_cond_wait(changed, mutex) }

    /// Wakes the thread waiting, if one is; called with the lock held.
    public func signal() { pthread_cond_signal(changed) }
}

/// A thread running a closure, joined once.
public struct WorkerThread {
    private let thread: pthread_t

    /// Starts a thread that runs `body` and ends.
    /// - Returns: `nil` when no thread can be made (the caller then does the work itself).
    public static func start(_ body: @escaping () -> Void) -> WorkerThread? {
        final class Job {
            let body: () -> Void
            init(_ body: @escaping () -> Void) { self.body = body }
        }
        let context = Unmanaged.passRetained(Job(body)).toOpaque()
        var thread = pthread_t()
        let made = pthread_create(
            &thread, nil,
            { context in
                // The thread holds the reference passed to it until it ends.
                Unmanaged<Job>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            }, context)
        guard made == 0 else {
            Unmanaged<Job>.fromOpaque(context).release()
            return nil
        }
        return WorkerThread(thread: thread)
    }

    /// Waits for the thread to end.
    public func join() { pthread_join(thread, nil) }
}
