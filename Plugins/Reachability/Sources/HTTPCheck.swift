import CCurlShims
import PathwatchJSON
import PathwatchProbeKit

/// One HTTP(S) request made with this probe's own machinery (a configured libcurl handle, the
/// phase timings, the failure messages), for plug-ins that ask one URL and judge the answer
/// themselves: the connectivity probe tells a captive portal from no answer at all. Redirects
/// are never followed: a portal's redirect is the answer.
package final class HTTPCheck {
    /// What came back.
    package struct Answer {
        /// The response's status; nil when no HTTP response arrived.
        package var status: Int?
        /// Where a redirect pointed, as scheme://host[:port] only (never its path or query).
        package var redirectEndpoint: String?
        /// The body was exactly the expected one (true when none is expected).
        package var bodyMatched: Bool
        /// Why no response arrived, worded as the reachability probe words it ("connection
        /// refused", "timed out after 2 s (connect)", "DNS: cannot resolve …"); nil with a response.
        package var failure: String?
        /// The request failed for this process's own lack of file descriptors: nothing is known.
        package var agentFault: Bool
        /// No answer came within the time limit.
        package var timedOut: Bool
        /// The reachability probe's metrics: http_status, dns_ms, connect_ms, ttfb_ms, total_ms, size_bytes.
        package var metrics: [(name: String, value: Double)]
        package var totalMilliseconds: Double
    }

    private let target: TargetSpec
    private let pool = TransferPool()
    private let runner: MultiRunner
    /// The exact body expected, in bytes; nil when any body will do.
    private let expectedBodyBytes: Int?

    /// `url` must be http:// or https://. Errors carry the path "url" (relative to the caller's
    /// config) and never quote the URL.
    package init(url: String, expectBody: String?, timeout: ConfigDuration) throws(ProbeConfigError) {
        if let parsed = try? TargetURL(parsing: url), parsed.kind == .tcp {
            throw ProbeConfigError("url", "expected an http:// or https:// URL")
        }
        let config = TargetConfig(
            name: "check", url: url, expectBodyContains: expectBody?.isEmpty == false ? expectBody : nil,
            timeout: timeout,
            followRedirects: false, freshConnection: true)
        let spec = try TargetSpec(config, at: JSONPath([]))
        target = spec
        expectedBodyBytes = expectBody.map { $0.utf8.count }
        do {
            // Set up once now, so options libcurl refuses fail at configuration time.
            let check = try pool.take()
            try check.configure(for: spec)
            pool.give(check)
            runner = try MultiRunner()
        } catch {
            throw ProbeConfigError("", "\(error)")
        }
    }

    /// scheme://host[:port] of the URL: safe to show.
    package var endpoint: String { target.url.endpoint }

    /// The timeout the check was made with.
    package var timeout: ConfigDuration { target.timeout }

    /// Asks the URL once, blocking the calling thread for at most `within` (the configured
    /// timeout when nil). A timeout's message names `stated` (the whole time the caller gave
    /// the check, over several attempts), else the limit; when that is less than the configured
    /// timeout, it says the probe's deadline cut it short.
    package func ask(within: ConfigDuration? = nil, stated: ConfigDuration? = nil) throws(ProbeSampleError) -> Answer {
        let result: TransferResult
        do {
            let limit = within ?? target.timeout
            let target = self.target
            let results = try runner.run(count: 1, maxConcurrency: 1, pool: pool) { _, transfer in
                try transfer.configure(for: target, timeLimit: limit)
                return true
            }
            guard var only = results.first else { throw ProbeSampleError("no result") }
            only.timeLimit = stated ?? limit
            result = only
        } catch let error as ProbeSampleError {
            throw error
        } catch {
            throw ProbeSampleError("\(error)")
        }
        let verdict = Verdict(target: target, result: result, now: 0)
        let answered = result.code == CURLE_OK && result.httpStatus > 0
        // Contains the expected text and is exactly as long: the body is the expected one.
        let exact = expectedBodyBytes.map { result.bodyMatched && result.bodyBytes == Int64($0) } ?? true
        return Answer(
            status: answered ? result.httpStatus : nil,
            redirectEndpoint: answered ? result.redirectURL.flatMap { try? TargetURL(parsing: $0).endpoint } : nil,
            bodyMatched: answered && exact,
            failure: answered ? nil : verdict.failureMessage(),
            agentFault: verdict.agentOutOfDescriptors,
            timedOut: result.code == CURLE_OPERATION_TIMEDOUT,
            metrics: verdict.metrics.filter { $0.name != "cert_days_left" },
            totalMilliseconds: result.timings.totalMilliseconds)
    }
}
