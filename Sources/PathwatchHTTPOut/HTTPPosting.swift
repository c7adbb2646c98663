/// What a deliverer POSTs through: libcurl's `HTTPPoster`, or a test's stand-in that answers
/// as it is told, so the delivery loop's retries and pacing can be run without a receiver.
package protocol HTTPPosting: AnyObject {
    /// One POST of `body`, to the URL followed by `urlSuffix`; blocks until the answer, the
    /// timeout, or an abort.
    func post(_ body: [UInt8], extraHeaders: [String], urlSuffix: String) -> HTTPResponse
}

extension HTTPPoster: HTTPPosting {}

/// Makes the poster of one delivery loop, on its thread, when the loop starts.
package typealias HTTPConnector = @Sendable (HTTPPostDescription, AbortFlag) throws -> any HTTPPosting

extension HTTPPoster {
    /// libcurl's: one easy handle for the life of the loop.
    package static let connector: HTTPConnector = { settings, abort in try HTTPPoster(settings, abort: abort) }
}
