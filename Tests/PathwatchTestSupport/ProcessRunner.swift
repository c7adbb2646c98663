import Foundation

/// The result of a finished process.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public var timedOut: Bool
}

/// Runs a command to completion (with a deadline) and captures its output.
/// `argv[0]` is looked up on PATH when it holds no slash.
@discardableResult
public func run(
    _ argv: [String], input: String? = nil, environment: [String: String]? = nil,
    timeout: Double = 60, currentDirectory: URL? = nil
) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = argv
    if let environment {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    if let currentDirectory { process.currentDirectoryURL = currentDirectory }
    let outPipe = Pipe()
    let errPipe = Pipe()
    let inPipe = Pipe()
    process.standardOutput = outPipe
    process.standardError = errPipe
    process.standardInput = inPipe
    // Drain both pipes concurrently so a chatty child never blocks on a full pipe.
    let outData = PipeCollector(outPipe)
    let errData = PipeCollector(errPipe)
    try process.run()
    if let input { inPipe.fileHandleForWriting.write(Data(input.utf8)) }
    try? inPipe.fileHandleForWriting.close()
    let deadline = Date().addingTimeInterval(timeout)
    var timedOut = false
    while process.isRunning {
        if Date() > deadline {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            break
        }
        usleep(5_000)
    }
    process.waitUntilExit()
    return ProcessResult(
        status: process.terminationStatus, stdout: outData.finish(), stderr: errData.finish(), timedOut: timedOut)
}

/// Runs a shell script with `bash -euo pipefail -c`.
@discardableResult
public func sh(_ script: String, environment: [String: String]? = nil, timeout: Double = 60) throws -> ProcessResult {
    try run(["bash", "-euo", "pipefail", "-c", script], environment: environment, timeout: timeout)
}

final class PipeCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ pipe: Pipe) {
        PipeReader.read(pipe, name: "test-collect") { [self] chunk in
            guard !chunk.isEmpty else {
                done.signal()
                return
            }
            lock.lock()
            data.append(chunk)
            lock.unlock()
        }
    }

    func finish() -> String {
        done.wait()
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }
}

/// A long-running child (the agent under `run`, a test HTTP server) whose stdout is read line by
/// line while it runs. `stop()` sends SIGTERM, then SIGKILL after a grace period.
public final class BackgroundProcess: @unchecked Sendable {
    public let process = Process()
    private let lock = NSLock()
    private var lines: [String] = []
    private var splitter = LineSplitter()
    /// Kept as bytes: a read may end inside a character, so the text is decoded when asked for.
    private var stderrBytes = Data()
    /// Standard output and error reached their end (every writer closed them): nothing more will
    /// be read. A process that has ended may still have lines in the pipe, read on another thread.
    private var ended = (output: false, error: false)

    public init(_ argv: [String], environment: [String: String]? = nil, currentDirectory: URL? = nil) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = argv
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let outPipe = Pipe()
        let errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        PipeReader.read(outPipe, name: "test-stdout") { [weak self] data in self?.append(data) }
        PipeReader.read(errPipe, name: "test-stderr") { [weak self] data in
            guard let self else { return }
            self.lock.lock()
            if data.isEmpty { self.ended.error = true }
            self.stderrBytes.append(data)
            self.lock.unlock()
        }
    }

    private func append(_ data: Data) {
        lock.lock()
        defer { lock.unlock() }
        if data.isEmpty { ended.output = true }
        lines += splitter.lines(completedBy: data)
    }

    /// Every complete stdout line so far.
    public var outputLines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }

    public var errorOutput: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: stderrBytes, as: UTF8.self)
    }

    /// Waits until a stdout line satisfies `predicate` (searching from line `from`), or times out.
    public func waitForLine(from: Int = 0, timeout: Double = 10, _ predicate: (String) -> Bool) -> (
        index: Int, line: String
    )? {
        waitUntilValue(timeout: timeout, interval: 0.002) { () -> (index: Int, line: String)? in
            let snapshot = outputLines
            guard from < snapshot.count else { return nil }
            for i in from..<snapshot.count where predicate(snapshot[i]) { return (i, snapshot[i]) }
            return nil
        }
    }

    public var isRunning: Bool { process.isRunning }

    /// Waits until the process has ended, then until what it wrote has been read (at most
    /// `outputGrace` more seconds: a child that outlives it may hold its output open). True when
    /// it ended within `timeout`. What a test reads after an exit needs both: the process may end
    /// before the reading threads have taken its last lines from the pipe, and on a busy machine
    /// often does.
    @discardableResult
    public func waitForExit(timeout: Double, outputGrace: Double = 5) -> Bool {
        let ended = waitUntil(timeout: timeout, interval: 0.005) { [self] in !process.isRunning }
        if ended { waitForOutputEnd(timeout: outputGrace) }
        return ended
    }

    /// Waits until everything the process (and any child still holding its output) wrote has
    /// been read: after it ends, its last lines may still be in the pipe. False after `timeout`.
    @discardableResult
    public func waitForOutputEnd(timeout: Double = 10) -> Bool {
        waitUntil(timeout: timeout, interval: 0.002) { [self] in
            lock.lock()
            defer { lock.unlock() }
            return ended.output && ended.error
        }
    }

    public func signal(_ sig: Int32) { kill(process.processIdentifier, sig) }

    public var processIdentifier: Int32 { process.processIdentifier }

    /// SIGTERM, then SIGKILL after `grace` seconds; returns the exit status.
    @discardableResult
    public func stop(grace: Double = 5) -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        _ = waitUntil(timeout: grace, interval: 0.005) { !process.isRunning }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        // What is read after a stop is everything it wrote.
        waitForOutputEnd(timeout: grace)
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
