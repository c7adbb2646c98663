import Foundation

/// Runs blocking work (waiting for processes, polling a server, sleeping) on a thread of its own
/// and resumes the caller when it ends, so an `async` test never holds one of Swift
/// concurrency's few cooperative threads while it waits. Return what the test asserts on and
/// assert in the test itself: an expectation recorded on this thread belongs to no test.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try body() })
        }
    }
}
