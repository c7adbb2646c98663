import CCurlShims
import PathwatchJSON
import PathwatchProbeKit

/// Everything the verdict needs from one finished transfer, read from the easy handle as soon
/// as it is done (the handle is reused by the next sample).
struct TransferResult {
    var code: CURLcode
    /// errno of the last failed socket call (ECONNREFUSED…), 0 when none.
    var osErrno: Int32 = 0
    /// 0 when no response arrived.
    var httpStatus: Int = 0
    var timings = PhaseTimings()
    var bodyBytes: Int64 = 0
    /// OpenSSL's X509_V_* result of certificate verification, 0 when it passed or never ran.
    var verifyResult: Int = 0
    /// notAfter of the server's certificate, seconds since the epoch, when libcurl reported it.
    var certificateNotAfter: Int64?
    /// libcurl's error text (CURLOPT_ERRORBUFFER). Only its OpenSSL reason is ever shown.
    var errorDetail: String = ""
    var bodyMatched = true
    /// The body was longer than `max_body`: the transfer was stopped there and judged on what arrived.
    var bodyCut = false
    /// What `expect_body`, `expect_json` and `expect_header` found wrong, one message each.
    var conditionFailures: [String] = []
    /// Whether the request ended on an https:// URL (after redirects, if followed).
    var endedOnHTTPS = false
    /// The last URL requested (after redirects). It holds whatever the configured URL held, so
    /// it is used to connect again, never shown.
    var effectiveURL: String?
    /// Where a redirect that was not followed pointed (CURLINFO_REDIRECT_URL); never shown whole.
    var redirectURL: String?
    /// The time limit the transfer ran under: the target's timeout, or less when the sample's
    /// deadline left less. Nil when none was set (a result made without a transfer).
    var timeLimit: ConfigDuration?
    /// Never started: the sample's deadline came before the transfer's turn.
    var notStarted = false

    init(code: CURLcode) { self.code = code }
}

extension TransferResult {
    /// The leaf certificate's fields as libcurl lists them ("Expire date:…"), per certificate.
    static func certificateFields(_ info: EasyInfo) -> [[String]] {
        guard let raw = info.pointer(CURLINFO_CERTINFO) else { return [] }
        let list = raw.assumingMemoryBound(to: curl_certinfo.self).pointee
        guard list.num_of_certs > 0, let chain = list.certinfo else { return [] }
        return (0..<Int(list.num_of_certs)).map { index in
            var fields: [String] = []
            var node = chain[index]
            while let current = node {
                if let data = current.pointee.data { fields.append(String(cString: data)) }
                node = current.pointee.next
            }
            return fields
        }
    }
}
