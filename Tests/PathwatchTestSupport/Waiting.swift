import Foundation

/// Waits for an event a test can only observe by looking (a line in a file, a document with a
/// state): polls `condition` until it holds or `timeout` seconds pass. The timeout is a bound on
/// a failing test, never a measurement: a passing test returns as soon as the event happened.
public func waitUntil(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
    waitUntilValue(timeout: timeout) { condition() ? true : nil } ?? false
}

/// Polls `body` until it returns a value, or gives up after `timeout` seconds.
public func waitUntilValue<T>(timeout: Double = 10, _ body: () -> T?) -> T? {
    let deadline = Date().addingTimeInterval(timeout)
    repeat {
        if let value = body() { return value }
        usleep(10_000)
    } while Date() < deadline
    return body()
}

/// `waitUntilValue` for a body that may throw and a caller that wants a failure it can report:
/// polls `body` every `interval` seconds until it returns a value, at most `timeout` seconds;
/// then throws naming `what` and the last error `body` threw. For polls that each run a command
/// (`systemctl show` in a container), where polling every 10 ms would keep a core busy.
public func waitFor<T>(_ what: String, timeout: Double = 60, interval: Double = 0.05, _ body: () throws -> T?) throws -> T {
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
