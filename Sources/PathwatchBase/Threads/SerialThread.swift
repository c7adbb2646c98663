import CProcessControl
import Dispatch
import Glibc
import Synchronization

/// A thread of its own that runs jobs one at a time, in the order given, for as long as its
/// owner lives. Used where libdispatch's queues would borrow a worker thread from the global
/// pool: an idle agent's work comes every few seconds, and the pool retires a worker that has
/// been idle for a few seconds, so each sample would start a thread and end it again (58
/// thread creations a minute on the default configuration). A blocking call (a plug-in's sample,
/// a write to a full pipe) holds this thread and nothing else: not Swift concurrency's
/// cooperative pool, not another probe's or sink's thread.
///
/// A thread started `watchingDescriptors` can also watch one descriptor between its jobs (an
/// event-driven probe's): it sleeps in poll(2) on the descriptor and on an pipe that new jobs
/// write a byte to, and serves the descriptor's readiness itself, in turn with its jobs. A kernel
/// notice then wakes the one thread that handles it, not a poll thread that hands it on.
package final class SerialThread: Sendable {
    private struct Jobs {
        var pending: [@Sendable () -> Void] = []
        var finishing = false
        /// Jobs wait until `activate` (a thread started paused).
        var paused = false
    }

    let name: String
    private let jobs = Mutex(Jobs())
    private let sleeper: ThreadSleeper

    /// Starts the thread. `name` shows in `ps -L` and /proc (cut to the kernel's 15 bytes).
    /// A thread started `paused` queues jobs and runs none until `activate`.
    package init(name: String, paused: Bool = false, watchingDescriptors: Bool = false) {
        self.name = name
        sleeper = watchingDescriptors ? ThreadSleeper.polling() : ThreadSleeper.waiting()
        jobs.withLock { $0.paused = paused }
        if !startDetachedThread({ self.loop() }) {
            // No thread to be had (the process is at its limit): run jobs where they are given
            // rather than lose them.
            jobs.withLock { $0.finishing = true }
        }
    }

    /// Queues `job`; returns at once.
    package func async(_ job: @escaping @Sendable () -> Void) {
        let inline = jobs.withLock { j -> Bool in
            if j.finishing { return true }
            j.pending.append(job)
            return false
        }
        if inline { job() } else { sleeper.wake() }
    }

    /// Queues `job` to run `nanoseconds` from now (the deadline waits on the timer thread).
    package func async(afterNanoseconds nanoseconds: UInt64, _ job: @escaping @Sendable () -> Void) {
        TimerThread.shared.schedule(afterNanoseconds: nanoseconds) { [self] in async(job) }
    }

    /// Runs `body` on this thread, after what is queued, and returns its result. Never from a
    /// job of this same thread: it would wait for itself.
    package func sync<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        waitForResult(of: body) { async($0) }
    }

    /// Lets a thread started paused run its jobs. Does nothing to a running one.
    package func activate() {
        jobs.withLock { $0.paused = false }
        sleeper.wake()
    }

    /// Watches `fd` between jobs: when it is readable (or hung up), `onReadable` runs on this
    /// thread, never beside a job; if it is closed under the watch, `onClosed` runs there once
    /// and the watch ends. False when this thread cannot watch (it was not started
    /// `watchingDescriptors`, or no pipe could be had for it).
    ///
    /// With `onUndrained`, a descriptor that stays readable after `onReadable` returns, call
    /// after call, is served once a second instead of spinning this thread (DrainGuard has the
    /// rule); `onUndrained` runs on this thread when it is throttled and when it is released.
    @discardableResult
    package func watch(
        _ fd: Int32, onReadable: @escaping @Sendable () -> Void, onClosed: @escaping @Sendable () -> Void,
        onUndrained: (@Sendable (DrainGuard.Change) -> Void)? = nil
    ) -> Bool {
        sleeper.watch(WatchedDescriptor(fd: fd, onReadable: onReadable, onClosed: onClosed, onUndrained: onUndrained))
    }

    /// Stops watching. A readiness being served finishes; none is served afterwards, so the
    /// descriptor may be closed by the next job.
    package func unwatch() { sleeper.unwatch() }

    /// Runs what is queued, then lets the thread end. Jobs given afterwards run on the caller.
    /// A paused thread is let go first: finishing means running what is queued.
    package func finish() {
        jobs.withLock {
            $0.finishing = true
            $0.paused = false
        }
        sleeper.wake()
    }

    private func loop() {
        setThreadName(name)
        while true {
            // Every job there is first; the thread ends when finishing and none is left, before
            // it could poll a descriptor that the last job closed.
            while true {
                let (next, done) = jobs.withLock { j -> ((@Sendable () -> Void)?, Bool) in
                    if j.paused || j.pending.isEmpty { return (nil, j.finishing && !j.paused) }
                    return (j.pending.removeFirst(), false)
                }
                if let next { next() } else if done { return } else { break }
            }
            sleeper.sleep()
        }
    }
}

/// Hands `work` to `enqueue` (which runs it later, elsewhere, or at once) and returns its
/// result once it has run.
package func waitForResult<T: Sendable>(
    of work: @escaping @Sendable () -> T, handingTo enqueue: (@escaping @Sendable () -> Void) -> Void
) -> T {
    let result = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    enqueue {
        let value = work()
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    return result.withLock { $0! }
}

/// Starts a detached thread that runs `body`; false when the process can have no more threads.
/// The closure is kept alive by the thread until it returns.
package func startDetachedThread(_ body: @escaping @Sendable () -> Void) -> Bool {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let started = pthread_create(
        &thread, nil,
        { context in
            Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, box)
    guard started == 0 else {
        Unmanaged<Box>.fromOpaque(box).release()
        return false
    }
    pthread_detach(thread)
    return true
}

/// Names the calling thread (at most 15 bytes; longer names are cut), through prctl(PR_SET_NAME):
/// not through /proc/thread-self/comm, which the kernel gives to root once the agent is not
/// dumpable (ProcessHardening), so the service's user could no longer write it.
package func setThreadName(_ name: String) {
    _ = pw_set_thread_name(String(decoding: name.utf8.prefix(15), as: UTF8.self))
}

/// Runs `body`, which blocks, on a thread made for it, and returns what it returns: a task waits
/// for it without holding one of Swift concurrency's threads.
package func onThreadOfItsOwn<T: Sendable>(named name: String, _ body: @escaping @Sendable () -> T) async -> T {
    let thread = SerialThread(name: name)
    let result = await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
        thread.async { done.resume(returning: body()) }
    }
    thread.finish()
    return result
}
