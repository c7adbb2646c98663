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
