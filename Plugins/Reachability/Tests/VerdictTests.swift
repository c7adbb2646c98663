import CCurlShims
import Glibc
import PathwatchJSON
import PathwatchProbeKit
import Testing

@testable import ReachabilityProbe

/// The verdict rules on their own, for outcomes a loopback server cannot easily produce.
@Suite struct VerdictTests {
    func target(_ json: String) throws -> TargetSpec {
        try TargetSpec(ProbeExport.decodeConfig(TargetConfig.self, from: json), at: JSONPath())
    }

    func verdict(_ targetJSON: String, _ result: TransferResult, now: Double = 0) throws -> (CheckState, String) {
        Verdict(target: try target(targetJSON), result: result, now: now).judge()
    }

    @Test func timeoutNamesThePhaseNotReached() throws {
        var result = TransferResult(code: CURLE_OPERATION_TIMEDOUT)
        result.timings = PhaseTimings(nameLookup: 20, total: 5_000_000)
        let (state, message) = try verdict(#"{"name": "a", "url": "https://api.example.com/"}"#, result)
        #expect(state == .critical)
        #expect(message == "timed out after 5 s (connect)")
        result.timings = PhaseTimings(nameLookup: 20, connect: 900, total: 1_500_000)
        #expect(
            try verdict(#"{"name": "a", "url": "https://api.example.com/", "timeout": "1500ms"}"#, result).1
                == "timed out after 1.5 s (TLS handshake)")
    }

    @Test func dnsFailureNamesTheHostOnly() throws {
        let result = TransferResult(code: CURLE_COULDNT_RESOLVE_HOST)
        let (state, message) = try verdict(
            #"{"name": "a", "url": "https://user:pw@api.example.com/x?token=t0k"}"#, result)
        #expect(state == .critical)
        #expect(message == "DNS: cannot resolve api.example.com")
    }

    @Test func connectErrorsUseTheSystemReason() throws {
        var result = TransferResult(code: CURLE_COULDNT_CONNECT)
        result.osErrno = EHOSTUNREACH
        #expect(
            try verdict(#"{"name": "a", "url": "tcp://10.0.0.1:22"}"#, result).1 == "cannot connect: no route to host")
    }

    @Test func opensslReasonDropsCodesAndErrno() {
        #expect(
            Verdict.opensslReason("OpenSSL/3.0.19: error:0A00010B:SSL routines::wrong version number")
                == "wrong version number")
        #expect(
            Verdict.opensslReason(
                "OpenSSL SSL_read: error:0A00045C:SSL routines::tlsv13 alert certificate required, errno 0")
                == "tlsv13 alert certificate required")
        #expect(Verdict.opensslReason("Recv failure: Connection reset by peer") == nil)
    }

    @Test func slowAndExpiringWarningsAreBothReported() throws {
        var result = TransferResult(code: CURLE_OK)
        result.httpStatus = 200
        result.timings = PhaseTimings(
            nameLookup: 1, connect: 2, appConnect: 3, preTransfer: 4, startTransfer: 900_000, total: 950_000)
        result.certificateNotAfter = 3 * 86_400 + 3600
        let (state, message) = try verdict(
            #"{"name": "a", "url": "https://api.example.com/", "max_latency": "800ms"}"#, result)
        #expect(state == .warning)
        #expect(message == "TLS: certificate expires in 3 days; slow: 950 ms (max 800 ms)")
    }

    @Test func statusFailureWinsOverWarnings() throws {
        var result = TransferResult(code: CURLE_OK)
        result.httpStatus = 500
        result.timings = PhaseTimings(nameLookup: 1, connect: 2, preTransfer: 4, startTransfer: 900_000, total: 950_000)
        let (state, message) = try verdict(
            #"{"name": "a", "url": "http://api.example.com/", "max_latency": "800ms"}"#, result)
        #expect(state == .critical)
        #expect(message == "HTTP 500 (expected 2xx) in 950 ms")
    }
}
