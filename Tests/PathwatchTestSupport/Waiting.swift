import Foundation

/// Waits for an event a test can only observe by looking (a line in a file, a document with a
/// state): polls `condition` every `interval` seconds until it holds or `timeout` seconds pass.
/// The timeout is a bound on a failing test, never a measurement: a passing test returns as soon
/// as the event happened. A `condition` that throws ends the wait with its error.
///
/// It blocks its thread: an `async` test that calls it runs `.onItsOwnThread`, or awaits
/// `waitUntilSuspending` instead.
public func waitUntil(timeout: Double = 10, interval: Double = 0.01, _ condition: () throws -> Bool) rethrows -> Bool {
    try waitUntilValue(timeout: timeout, interval: interval) { try condition() ? true : nil } ?? false
}

/// Polls `body` every `interval` seconds until it returns a value, or gives up after `timeout`
/// seconds and returns nil; `body` is called once more at the end, so an event that came just as
/// time ran out still counts. A `body` that throws ends the wait with its error (a child that
/// exited: nothing more will come). To keep what the last poll saw for a failure message, let
/// `body` store it in a variable of the caller.
public func waitUntilValue<T>(timeout: Double = 10, interval: Double = 0.01, _ body: () throws -> T?) rethrows -> T? {
    let deadline = Date().addingTimeInterval(timeout)
    repeat {
        if let value = try body() { return value }
        usleep(useconds_t(interval * 1_000_000))
    } while Date() < deadline
    return try body()
}

/// `waitUntil` for an `async` test on the cooperative pool: between polls the task is suspended,
/// not its thread blocked, so the pool's few threads stay free for the code under test.
public func waitUntilSuspending(
    timeout: Double = 10, interval: Double = 0.01, _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
    repeat {
        if try await condition() { return true }
        do {
            try await Task.sleep(for: .milliseconds(Int64(interval * 1000)))
        } catch {
            break  // cancelled: one last look, no more waiting
        }
    } while ContinuousClock.now < deadline
    return try await condition()
}

/// `waitUntilValue` for a body that may throw and a caller that wants a failure it can report:
/// polls `body` every `interval` seconds until it returns a value, at most `timeout` seconds;
/// then throws naming `what` and the last error `body` threw. An error does not end the wait
/// here: it is taken as "not yet". For polls that each run a command (`systemctl show` in a
/// container), where polling every 10 ms would keep a core busy.
public func waitFor<T>(_ what: String, timeout: Double = 60, interval: Double = 0.05, _ body: () throws -> T?) throws
    -> T
{
    let deadline = Date().addingTimeInterval(timeout)
    var lastError: (any Error)?
    repeat {
        do {
            if let value = try body() { return value }
        } catch {
            lastError = error
        }
        usleep(useconds_t(interval * 1_000_000))
    } while Date() < deadline
    throw TestFailure("waited \(timeout) s for \(what)\(lastError.map { ": \($0)" } ?? "")")
}
