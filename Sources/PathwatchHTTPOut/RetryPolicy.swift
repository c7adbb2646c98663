import CCurlShims
import Glibc
import PathwatchJSON

/// When to try a payload again: exponential backoff from `initial`, doubling per consecutive
/// failure up to `max`, with "equal jitter" (a uniformly random point in the upper half of the
/// step) so many agents that lost the same receiver do not come back in lockstep, yet none
/// retries sooner than half the step. A `Retry-After` from the receiver (429 or 503) replaces
/// the backoff, capped at `max` so one answer cannot park the queue for days.
package struct RetryPolicy: Sendable {
    package var initial: Double
    package var max: Double

    package init(initial: Double, max: Double) {
        self.initial = initial
        self.max = max
    }

    /// The un-jittered step after `failures` consecutive failures (1 → initial).
    package func step(afterFailures failures: Int) -> Double {
        let exponent = Double(Swift.min(Swift.max(failures - 1, 0), 62))
        return Swift.min(max, initial * pow(2, exponent))
    }

    package func delay<G: RandomNumberGenerator>(
        afterFailures failures: Int, retryAfter: Double?, using generator: inout G
    ) -> Double {
        if let retryAfter { return Swift.min(Swift.max(retryAfter, 0), max) }
        let step = step(afterFailures: failures)
        return step / 2 + Double.random(in: 0...(step / 2), using: &generator)
    }
}

/// `Retry-After` (RFC 9110 §10.2.3): a number of seconds, or an HTTP date.
package enum RetryAfter {
    /// Seconds to wait from `now`; nil when the value is neither form. A date in the past is 0.
    package static func seconds(_ value: String, now: time_t = time(nil)) -> Double? {
        let text = String(decoding: ASCIIText.trimmed(Array(value.utf8)), as: UTF8.self)
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return Double(text)
        }
        // libcurl's parser takes all three HTTP date forms (IMF-fixdate, RFC 850, asctime).
        let date = pw_curl_getdate(text)
        guard date >= 0 else { return nil }
        return Double(Swift.max(0, date - now))
    }

    /// The seconds a JSON answer asks for, where a provider says "later" in its body rather than
    /// in a header: Discord's `{"retry_after": 0.6}` and Telegram's
    /// `{"parameters": {"retry_after": 5}}`. Nil when the body says neither.
    package static func inBody(_ body: [UInt8]) -> Double? {
        guard body.first(where: { $0 > 0x20 }) == UInt8(ascii: "{"), let value = try? JSONParser.parse(bytes: body)
        else { return nil }
        let seconds = value["retry_after"]?.numberValue ?? value["parameters"]?["retry_after"]?.numberValue
        guard let seconds, seconds.isFinite, seconds >= 0 else { return nil }
        return seconds
    }
}
