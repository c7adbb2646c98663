import Dispatch
import Synchronization

/// One poll(2) loop for every event-driven probe: a descriptor that becomes readable is handed
/// to its probe's runner at once, and watched again when the runner has served it (so a probe
/// that is slow to drain gets one pending service, not a busy loop).
final class EventLoop: Sendable {
    private struct Watch {
        var fd: Int32
        var runner: ProbeRunner
        var armed: Bool
    }

    private let watches = Mutex<[Watch]>([])
    private let running = Mutex(false)
    /// Written to wake poll() when the set of descriptors changes or the loop must stop.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let finished = DispatchSemaphore(value: 0)
    /// Loop iterations so far: the watchdog's evidence that the loop still comes round.
    private let turns = Atomic<UInt64>(0)

    init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    func watch(_ fd: Int32, runner: ProbeRunner) {
        watches.withLock { $0.append(Watch(fd: fd, runner: runner, armed: true)) }
        wake()
    }

    func unwatch(runner: ProbeRunner) {
        watches.withLock { $0.removeAll { $0.runner === runner } }
        wake()
    }

    func start() {
        running.withLock { $0 = true }
        let thread = SerialThread(name: "pw-events")
        thread.async { [self] in
            loop()
            finished.signal()
        }
        thread.finish()
    }

    func stop() {
        let wasRunning = running.withLock { r -> Bool in
            defer { r = false }
            return r
        }
        guard wasRunning else { return }
        wake()
        _ = finished.wait(timeout: .now() + 2)
    }

    /// Wakes the loop for one more turn, and returns the turns made before it.
    func nudge() -> UInt64 {
        let before = turns.load(ordering: .acquiring)
        wake()
        return before
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private func loop() {
        while running.withLock({ $0 }) {
            let turn = turns.add(1, ordering: .releasing).newValue
            Failpoint.wedgeEventLoop(atTurn: turn)
            let armed = watches.withLock { $0.filter(\.armed) }
            var polls = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            polls += armed.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let n = poll(&polls, nfds_t(polls.count), -1)
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            if polls[0].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while read(wakeRead, &drain, drain.count) > 0 {}
            }
            for (i, watch) in armed.enumerated() where polls[i + 1].revents != 0 {
                let runner = watch.runner
                let fd = watch.fd
                watches.withLock { list in
                    if let j = list.firstIndex(where: { $0.runner === runner && $0.fd == fd }) { list[j].armed = false }
                }
                runner.serviceEvent { [self] in
                    watches.withLock { list in
                        if let j = list.firstIndex(where: { $0.runner === runner && $0.fd == fd }) { list[j].armed = true }
                    }
                    wake()
                }
            }
        }
    }
}
