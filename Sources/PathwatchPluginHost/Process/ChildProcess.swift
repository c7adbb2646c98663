import CChildProcess
import CFaultReport
import Dispatch
import Glibc
import PathwatchBase
import PathwatchJSON
import PathwatchProbeKit
import PathwatchSinkKit
import Synchronization

/// One running `pathwatch plugin-child`: its pid, the agent's end of the socketpair, and one
/// reader thread that owns everything the child sends — frames (replies to calls, events) and
/// its stdout and stderr (the plug-in's prints), which are logged at debug, cut and bounded;
/// stderr's last lines are kept for the cause of a crash (StderrTail).
/// Frames for the child itself (what it loaded) wait in its inbox; frames for an instance it
/// hosts go to `route`. When the socket reaches its end, or the child's pidfd says it has ended,
/// the reader reaps the child, posts how it ended to the inbox and tells `ended`.
package final class ChildProcess: Sendable {
    package enum Message: Sendable {
        case frame(JSONValue)
        /// The answer to a sample call; nil when it was malformed.
        case sampled(CallResult?)
        /// What an event-driven instance's descriptor gave; nil when it was malformed.
        case event(CallResult?)
        /// The child is gone; its wait status.
        case ended(Int32)
    }

    /// Where frames for an instance go, on the reader thread: the instance and the frame.
    package typealias Route = @Sendable (UInt32, Message) -> Void

    package var pid: pid_t { childPID.pid }
    private let childPID: ChildPID
    private let socket: Int32
    private let inbox = Mutex<[Message]>([])
    private let arrived = DispatchSemaphore(value: 0)
    private let route: Route?
    private let ended: Ended?

    /// The child ended, on the reader thread: its wait status, the instance whose thread
    /// crashed or called exit() when it said so, and the last lines it wrote to stderr (redacted
    /// and escaped; nil when it wrote none).
    package typealias Ended = @Sendable (_ status: Int32, _ faultIn: UInt32?, _ stderrTail: String?) -> Void
    /// Calls come from every instance's caller, and go out in order, gathered (FrameOutbox).
    private let outbox: FrameOutbox
    /// The reader is handling what it read (each reply runs its probe's report through the
    /// agent), not waiting for more.
    private let readerBusy = Atomic<Bool>(false)

    /// An answer may have come and not been read: the socket holds some, or the reader is busy.
    package var answerMayBeUnread: Bool { readerBusy.load(ordering: .acquiring) || hasInputNow(socket) }

    /// The executable to re-run as the child: this very program.
    package static let executable: String = {
        var buffer = [CChar](repeating: 0, count: 4_096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "/proc/self/exe"
    }()

    /// Starts `executable` (this program unless said otherwise) with `arguments` after
    /// `plugin-child`. `label` names it in logs (asked each time: the probes a child hosts change).
    package static func start(
        arguments: [String], executable: String = executable, label: @escaping @Sendable () -> String,
        logger: AgentLogger, route: Route? = nil, ended: Ended? = nil, clock: any AgentClock = SystemClock()
    ) -> Result<ChildProcess, ChildStartError> {
        // The calls' socket; the child's stdout, and its stderr apart (its last lines go into a
        // crash's cause); where the child says which instance a crash or exit() happened in
        // (CFaultReport); and where it hands over its call guard's listener (CallRuling).
        let pairs: [[Int32]]
        switch ChildSpawn.socketPairs(5) {
        case .success(let made): pairs = made
        case .failure(let error): return .failure(error)
        }
        let (pair, output, errors, fault, supervision) = (pairs[0], pairs[1], pairs[2], pairs[3], pairs[4])
        let spawned = ChildSpawn.spawn(
            executable, arguments, socket: pair[1], stdout: output[1], stderr: errors[1], fault: fault[1],
            supervision: supervision[1])
        for made in pairs { close(made[1]) }
        let pid: pid_t
        switch spawned {
        case .success(let started): pid = started
        case .failure(let error):
            for made in pairs { close(made[0]) }
            return .failure(error)
        }
        // Ruled on before the plug-in is loaded: the child hands its listener over first thing.
        let refusals = RefusedCallLog { logger.warning("\(label()): \($0)") }
        CallRuling.start(supervision: supervision[0], child: pid) { refusals.record($0) }
        let child = ChildProcess(pid: pid, socket: pair[0], route: route, ended: ended)
        let (outputEnd, errorsEnd, faultEnd) = (output[0], errors[0], fault[0])
        // The socket alone cannot tell that the child ended: a process the plug-in forked keeps
        // its end open, and would hold every instance's call until it exits too.
        let exitWatch = pw_pidfd_open(pid)
        let reader = SerialThread(name: "pw-child-\(pid)")
        reader.async {
            child.readUntilEnd(
                output: ChildOutput(stdout: outputEnd, stderr: errorsEnd, label: label, logger: logger, clock: clock),
                fault: faultEnd,
                exitWatch: exitWatch, label: label, logger: logger)
        }
        reader.finish()
        return .success(child)
    }

    private init(pid: pid_t, socket: Int32, route: Route?, ended: Ended?) {
        let childPID = ChildPID(pid)
        self.childPID = childPID
        self.socket = socket
        self.route = route
        self.ended = ended
        // A child that cannot take its calls is dying: killed, its end reaches every caller.
        outbox = FrameOutbox(socket: socket) { childPID.kill() }
    }

    /// Queues a call for the child; false once the child's end has been seen. A `held` call may
    /// wait up to a millisecond for other calls to go in the same write (FrameOutbox).
    package func send(_ value: JSONValue, held: Bool = false) -> Bool {
        let body = Frames.body(value)
        guard let header = Frames.header(body: body) else { return false }
        return held ? outbox.enqueueHeld(header, body) : outbox.enqueue(header, body)
    }

    /// The next reply or the child's end; nil after `seconds` (nil: wait as long as it takes).
    package func next(within seconds: Double? = nil) -> Message? {
        let got: Bool
        if let seconds {
            got = arrived.wait(timeout: .now() + seconds) == .success
        } else {
            arrived.wait()
            got = true
        }
        guard got else { return nil }
        return inbox.withLock { $0.removeFirst() }
    }

    package func kill() { childPID.kill() }

    /// Closes the agent's end: the child sees the end of its input, destroys the instance and
    /// exits. A child that is still busy after `grace` seconds is killed.
    package func finish(grace: Double = 2) {
        outbox.finish { [socket] in _ = shutdown(socket, Int32(SHUT_RDWR)) }
        TimerThread.shared.schedule(afterNanoseconds: UInt64(max(0, grace) * 1e9)) { [self] in
            if inbox.withLock({ !$0.contains { if case .ended = $0 { true } else { false } } }) {
                childPID.kill()
            }
        }
    }

    /// Waits until the child has ended and everything it printed was logged; false after `seconds`.
    @discardableResult
    package func waitForEnd(seconds: Double) -> Bool {
        let deadline = MonotonicClock.nowNanoseconds() + Int64(seconds * 1e9)
        while true {
            let left = Double(deadline - MonotonicClock.nowNanoseconds()) / 1e9
            guard left > 0, let message = next(within: left) else { return false }
            if case .ended = message { return true }
        }
    }

    private func post(_ message: Message) {
        inbox.withLock { $0.append(message) }
        arrived.signal()
    }

    /// The reader thread: frames to the inbox (events to the event handler), output to the
    /// debug log, and at the end the wait status.
    private func readUntilEnd(
        output: ChildOutput, fault: Int32, exitWatch: Int32, label: @escaping @Sendable () -> String,
        logger: AgentLogger
    ) {
        var output = output
        var faultReport = FaultReport(fd: fault)
        var frames = FrameBuffer()
        while true {
            var polls =
                [
                    pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: faultReport.pollable, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: exitWatch, events: Int16(POLLIN), revents: 0),
                ] + output.pollables.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            readerBusy.store(false, ordering: .releasing)
            let polled = poll(&polls, nfds_t(polls.count), -1)
            readerBusy.store(true, ordering: .releasing)
            if polled < 0 {
                if errno == EINTR { continue }
                break
            }
            if polls[1].revents != 0 { faultReport.read() }
            for entry in polls[3...] where entry.revents != 0 { output.read(entry.fd) }
            if polls[2].revents != 0 {
                // Ended: take the frames it wrote before it did, without waiting for more.
                while receive(into: &frames) == .more {}
                break
            }
            guard polls[0].revents != 0 else { continue }
            guard receive(into: &frames) != .ended else { break }
        }
        if frames.pending > 0 {
            logger.debug("\(label()): the child ended \(frames.pending) bytes into a frame; dropped")
        }
        if exitWatch >= 0 { close(exitWatch) }
        // Drain what the child printed last (a crash report, say), without waiting, then reap it.
        output.finish()
        // A call still queued fails at once; the socket is closed once the writer is done with it.
        shutdown(socket, Int32(SHUT_RDWR))
        outbox.finish { [socket] in _ = close(socket) }
        let status = childPID.reap()
        // What the plug-in started and left in the child's session ends with it.
        ProcessSweep.end(treeOf: pid)
        // Reaped: whatever the child reported before it died is there to read.
        let faultIn = faultReport.finish()
        post(.ended(status))
        ended?(status, faultIn, output.stderrTail)
    }
}

extension ChildProcess {
    package enum Received { case more, drained, ended }

    /// Reads what the socket holds now, without waiting, and hands on every whole frame: a reply
    /// for the child itself to the inbox, one for an instance to `route`. `ended` at the end of
    /// the stream, on an error or a malformed frame; `drained` when nothing more is there yet.
    fileprivate func receive(into frames: inout FrameBuffer) -> Received {
        let (n, error) = withUnsafeTemporaryAllocation(byteCount: 64 << 10, alignment: 1) { chunk in
            let n = recv(socket, chunk.baseAddress, chunk.count, Int32(MSG_DONTWAIT))
            let error = errno
            if n > 0 { frames.append(UnsafeRawBufferPointer(rebasing: chunk[0..<n])) }
            return (n, error)
        }
        if n < 0 { return error == EINTR ? .more : error == EAGAIN ? .drained : .ended }
        if n == 0 { return .ended }
        while true {
            switch frames.next() {
            case .incomplete: return .more
            case .malformed: return .ended
            case .frame(let instance, let body):
                guard let frame = ResultFrames.decode(body) else { return .ended }
                deliver(frame, to: instance)
            }
        }
    }

    private func deliver(_ frame: ResultFrames.Incoming, to instance: UInt32) {
        let message: Message
        switch frame {
        case .result(.event, let result): message = .event(result)
        case .result(.sampled, let result): message = .sampled(result)
        case .other(let value): message = .frame(value)
        }
        if instance == 0 {
            post(message)
        } else {
            route?(instance, message)
        }
    }
}

package struct ChildStartError: Error {
    package var reason: String
}

/// What a wait status says, as the operator reads it ("plug-in crashed: SIGSEGV (signal 11)").
package enum ChildEnd {
    package static func describe(_ status: Int32) -> String {
        let signal = status & 0x7F
        if signal == 0 { return "plug-in exited with status \((status >> 8) & 0xFF)" }
        return "plug-in crashed: \(signalName(signal)) (signal \(signal))"
    }

    /// The one source of signal names (CFaultReport's, which the fault handler's line uses too):
    /// the agent, `plugins --try` and the line a crashed plug-in leaves all say the same name.
    package static func signalName(_ signal: Int32) -> String {
        String(cString: pw_signal_name(signal))
    }
}
