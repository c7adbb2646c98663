import CCurlShims
import PathwatchProbeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Turns one target's transfer into its check: a state, a message an operator can act on, and
/// the metrics. Messages never contain a URL, header value or request body.
struct Verdict {
    let target: TargetSpec
    let result: TransferResult
    /// Seconds since the epoch, for certificate lifetimes.
    let now: Double

    var observation: Observation {
        let (state, message) = judge()
        return Observation(key: target.name, state: state, message: message, metrics: metrics, labels: labels)
    }

    var labels: [(name: String, value: String)] {
        var out = [("endpoint", target.url.endpoint), ("method", target.isTCP ? "CONNECT" : target.method.rawValue)]
        // The failure is the agent's, not the endpoint's: the host shows it but raises no event.
        if agentOutOfDescriptors { out.append((WellKnownLabel.agentFault, "1")) }
        return out
    }

    /// The transfer failed because this process ran out of file descriptors (EMFILE) or the
    /// system did (ENFILE): nothing is known about the endpoint.
    var agentOutOfDescriptors: Bool {
        result.code != CURLE_OK && (result.osErrno == EMFILE || result.osErrno == ENFILE)
    }

    var certificateDaysLeft: Double? {
        result.certificateNotAfter.map { (Double($0) - now) / 86_400 }
    }

    var metrics: [(name: String, value: Double)] {
        var out: [(name: String, value: Double)] = []
        let timings = result.timings
        if result.httpStatus > 0 { out.append(("http_status", Double(result.httpStatus))) }
        if let dns = timings.dnsMilliseconds { out.append(("dns_ms", dns)) }
        if let connect = timings.connectMilliseconds { out.append(("connect_ms", connect)) }
        if let tls = timings.tlsMilliseconds { out.append(("tls_ms", tls)) }
        if let ttfb = timings.ttfbMilliseconds, !target.isTCP { out.append(("ttfb_ms", ttfb)) }
        // A transfer that failed has no total: the time until the failure (a refusal in 2 ms, a
        // timeout) is no latency of the endpoint, and a plot or a rule would read it as one.
        if result.code == CURLE_OK { out.append(("total_ms", timings.totalMilliseconds)) }
        if !target.isTCP, result.code == CURLE_OK { out.append(("size_bytes", Double(result.bodyBytes))) }
        if let days = certificateDaysLeft { out.append(("cert_days_left", (days * 100).rounded() / 100)) }
        return out
    }

    func judge() -> (CheckState, String) {
        if agentOutOfDescriptors {
            return (
                .unknown,
                "agent out of file descriptors (\(MessageFormat.lowercasingFirst(systemErrorText(result.osErrno)))); endpoint not checked"
            )
        }
        guard result.code == CURLE_OK else { return (.critical, failureMessage()) }
        let elapsed = MessageFormat.milliseconds(result.timings.totalMilliseconds)
        let summary = target.isTCP ? "connected in \(elapsed)" : "HTTP \(result.httpStatus) in \(elapsed)"
        if !target.isTCP {
            guard target.expectStatus.matches(result.httpStatus) else {
                return (.critical, "HTTP \(result.httpStatus) (expected \(target.expectStatus)) in \(elapsed)")
            }
            if let needle = target.expectBodyContains, !result.bodyMatched {
                let cut = result.bodyCut ? ", body cut at max_body" : ""
                return (.critical, "body does not contain \(MessageFormat.quoted(needle)) (\(summary)\(cut))")
            }
            if let first = result.conditionFailures.first {
                let more = result.conditionFailures.count - 1
                let others = more == 0 ? "" : "; \(more) more condition\(more == 1 ? "" : "s") failed"
                return (.critical, "\(first)\(others) (\(summary))")
            }
        }
        var warnings: [String] = []
        if let days = certificateDaysLeft, days * 86_400 < target.certExpiryWarn.seconds {
            warnings.append(
                days < 0
                    ? "TLS: certificate expired \(MessageFormat.days(-days)) ago"
                    : "TLS: certificate expires in \(MessageFormat.days(days))")
        }
        if let limits = target.maxLatency { warnings += limits.warnings(result.timings) }
        // Conditions held on what arrived; the message says it was not the whole body.
        let read = result.bodyCut ? " (body cut at max_body, \(MessageFormat.size(target.conditions.maxBody)))" : ""
        return warnings.isEmpty ? (.ok, summary + read) : (.warning, warnings.joined(separator: "; "))
    }

    /// What went wrong, from libcurl's code and the details it keeps beside it.
    func failureMessage() -> String {
        let code = result.code
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST:
            // libcurl's threaded resolver cannot tell "no such name" from "no resolver answered".
            return "DNS: cannot resolve \(target.url.host)"
        case CURLE_COULDNT_CONNECT:
            switch result.osErrno {
            case ECONNREFUSED: return "connection refused"
            case 0: return "cannot connect"
            default: return "cannot connect: \(MessageFormat.lowercasingFirst(systemErrorText(result.osErrno)))"
            }
        case CURLE_OPERATION_TIMEDOUT:
            if result.notStarted { return "timed out before it started: no time left before the probe's deadline" }
            let phase = result.timings.unfinishedPhase(
                usesTLS: target.url.kind == .https || result.endedOnHTTPS, connectOnly: target.isTCP)
            let limit = result.timeLimit ?? target.timeout
            // Cut short by the sample's deadline: say so, or the configured timeout looks ignored.
            let cut = limit < target.timeout ? ": ran out of time before the probe's deadline" : ""
            return "timed out after \(MessageFormat.duration(limit)) (\(phase))\(cut)"
        case CURLE_PEER_FAILED_VERIFICATION:
            return certificateFailure()
        case CURLE_SSL_CONNECT_ERROR:
            return "TLS: handshake failed (\(tlsReason))"
        case CURLE_SSL_CERTPROBLEM:
            return "TLS: cannot use the client certificate (\(tlsReason))"
        case CURLE_SSL_CACERT_BADFILE:
            return "TLS: cannot load ca_file"
        case CURLE_GOT_NOTHING:
            return "empty reply from server"
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR:
            if let headers = ResponseHeaderLimit.message(result.errorDetail) { return headers }
            // TLS 1.3 servers refuse a client (no or a wrong certificate) after the handshake,
            // so the refusal arrives as a TLS alert on the first read.
            if let reason = Self.opensslReason(result.errorDetail) { return "TLS: refused by server (\(reason))" }
            if result.osErrno == ECONNRESET { return "connection reset by server" }
            return code == CURLE_RECV_ERROR ? "receive failed" : "send failed"
        case CURLE_TOO_MANY_REDIRECTS:
            return "too many redirects (more than \(Transfer.maxRedirects))"
        case CURLE_WEIRD_SERVER_REPLY:
            return "not an HTTP response"
        case CURLE_UNSUPPORTED_PROTOCOL:
            return "redirected to an unsupported protocol"
        default:
            if code.rawValue == ResponseHeaderLimit.tooLargeCode,
                let headers = ResponseHeaderLimit.message(result.errorDetail)
            {
                return headers
            }
            return "failed: \(MessageFormat.lowercasingFirst(curlText(code)))"
        }
    }

    /// OpenSSL's reason as libcurl wrote it, without libcurl's prefixes and OpenSSL's codes.
    var tlsReason: String {
        if let reason = Self.opensslReason(result.errorDetail) { return reason }
        var detail = result.errorDetail
        for prefix in ["SSL certificate problem: ", "SSL: "] where detail.hasPrefix(prefix) {
            detail.removeFirst(prefix.count)
        }
        return detail.isEmpty ? curlText(result.code) : detail
    }

    /// "OpenSSL/3.0.19: error:0A00010B:SSL routines::wrong version number, errno 0" → "wrong
    /// version number"; nil when the text holds no OpenSSL error.
    static func opensslReason(_ detail: String) -> String? {
        guard let marker = detail.firstRange(of: "routines::") else { return nil }
        var reason = detail[marker.upperBound...]
        if let errno = reason.firstRange(of: ", errno") { reason = reason[..<errno.lowerBound] }
        return reason.isEmpty ? nil : String(reason)
    }

    /// X509_V_ERR_CERT_NOT_YET_VALID and X509_V_ERR_CERT_HAS_EXPIRED from OpenSSL's x509_vfy.h.
    static let certificateNotYetValid = 9
    static let certificateExpired = 10

    func certificateFailure() -> String {
        // libcurl checks the host name itself, after OpenSSL accepted the chain.
        if result.errorDetail.contains("target host name") {
            return "TLS: certificate does not match host name \(target.url.host)"
        }
        switch result.verifyResult {
        case Self.certificateExpired:
            guard let days = certificateDaysLeft, days < 0 else { return "TLS: certificate expired" }
            return "TLS: certificate expired \(MessageFormat.days(-days)) ago"
        case Self.certificateNotYetValid:
            return "TLS: certificate not valid yet"
        default:
            return "TLS: certificate not trusted (\(tlsReason))"
        }
    }
}
