import CCurlShims
import PathwatchJSON

/// What one attempt at one payload (or batch) came to, decided from libcurl's result and the HTTP status.
package enum DeliveryOutcome: Equatable, Sendable {
    /// A 2xx: the payload leaves the queue.
    case delivered(status: Int)
    /// Try again later: no connection, a timeout, 408, 429, 5xx, or anything else not final.
    /// `retryAfter` holds the seconds a 429 or 503 asked for.
    case retry(reason: String, retryAfter: Double?)
    /// A 4xx other than 408 and 429: this payload will never be accepted; it is dropped and
    /// counted, and delivery moves on. `firstLine` is the start of the response body.
    case rejected(status: Int, firstLine: String)
    /// The sink is closing; the payload stays queued.
    case aborted

    /// `now` is the wall-clock second a `Retry-After` date is counted from.
    package static func classify(_ response: HTTPResponse, now: time_t = time(nil)) -> DeliveryOutcome {
        if response.aborted { return .aborted }
        guard response.curlCode == CURLE_OK else {
            return .retry(reason: response.transportError, retryAfter: nil)
        }
        let status = response.status
        switch status {
        case 200...299:
            return .delivered(status: status)
        case 429, 503:
            return .retry(
                reason: "HTTP \(status)",
                retryAfter: response.retryAfter.flatMap { RetryAfter.seconds($0, now: now) }
                    ?? RetryAfter.inBody(response.body))
        case 408:
            return .retry(reason: "HTTP 408", retryAfter: nil)
        case 400...499:
            return .rejected(status: status, firstLine: response.bodyFirstLine)
        case 300...399:
            return .retry(reason: "HTTP \(status) (redirects are not followed; check the URL)", retryAfter: nil)
        default:
            return .retry(reason: "HTTP \(status)", retryAfter: nil)
        }
    }
}
