import CCurlShims
import PathwatchJSON
import PathwatchProbeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One libcurl easy handle from the probe's pool, configured afresh for each target it serves
/// (curl_easy_reset keeps its buffers and the multi handle keeps the connections), so memory
/// follows the number of transfers in flight, not the number of targets.
final class Transfer {
    let handle: UnsafeMutableRawPointer
    private let body = ResponseBody()
    private let responseHeaders = HeaderCapture()
    /// The conditions of the target being served, judged as soon as its transfer finishes.
    private var conditions = ResponseConditions()
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// errno of the last socket() that failed for this handle (see the open-socket shim).
    private let socketErrno: UnsafeMutablePointer<Int32>
    private var connectOnly = false
    /// The time limit set for the current request.
    private var timeLimit: ConfigDuration?

    static let userAgent = "pathwatch-reachability/\(ReachabilityProbe.version)"
    static let maxRedirects = 10

    init() throws {
        guard curlGlobalInit == CURLE_OK else { throw CurlSetupError(description: "libcurl failed to initialise") }
        guard let handle = pw_curl_easy_init() else {
            throw CurlSetupError(description: "libcurl cannot create a handle")
        }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        socketErrno = .allocate(capacity: 1)
        socketErrno.initialize(to: 0)
    }

    /// Sets the handle up for the request `target` describes, limited to `timeLimit` (the
    /// target's timeout when nil).
    func configure(for target: TargetSpec, timeLimit: ConfigDuration? = nil) throws {
        try reset(needle: target.expectBodyContains, connectOnly: target.isTCP, conditions: target.conditions)
        let set = EasyOptions(handle: handle)
        try applyCommon(url: target.url.requestURL, target: target, timeLimit: timeLimit)
        if target.isTCP {
            try set.set(CURLOPT_CONNECT_ONLY, 1)
            // A plain connect goes to the host itself, never through a proxy from the environment.
            try set.set(CURLOPT_PROXY, string: "")
            return
        }
        try set.set(CURLOPT_REDIR_PROTOCOLS_STR, string: "http,https")
        try set.set(CURLOPT_WRITEFUNCTION, callback: ResponseBody.writeCallback)
        try set.set(CURLOPT_WRITEDATA, pointer: Unmanaged.passUnretained(body).toOpaque())
        if !conditions.headers.isEmpty {
            try set.set(CURLOPT_HEADERFUNCTION, callback: HeaderCapture.headerCallback)
            try set.set(CURLOPT_HEADERDATA, pointer: Unmanaged.passUnretained(responseHeaders).toOpaque())
        }
        switch target.method {
        case .get: break
        case .head: try set.set(CURLOPT_NOBODY, true)
        case .post:
            let body = target.body ?? ""
            try set.set(CURLOPT_POST, true)
            // Size first, so a body holding NUL bytes is sent whole; COPY so libcurl owns it.
            try set.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(body.utf8.count))
            try set.set(CURLOPT_COPYPOSTFIELDS, string: body)
        }
        for header in target.headers {
            guard let extended = pw_curl_slist_append(headerList, header) else {
                throw CurlSetupError(description: "out of memory building request headers")
            }
            headerList = extended
        }
        if let headerList { try set.set(CURLOPT_HTTPHEADER, pointer: UnsafeMutableRawPointer(headerList)) }
        if target.followRedirects {
            try set.set(CURLOPT_FOLLOWLOCATION, true)
            try set.set(CURLOPT_MAXREDIRS, Self.maxRedirects)
        }
        try set.set(CURLOPT_CERTINFO, true)
        try applyTLS(target.tls)
    }

    /// Sets the handle up for a bare TLS handshake with verification off, only to read the
    /// certificate of a server whose certificate failed verification as expired or not yet
    /// valid, so the message can say when.
    func configure(inspectingCertificateOf target: TargetSpec, at url: String, timeLimit: ConfigDuration? = nil) throws
    {
        try reset(needle: nil, connectOnly: true)
        let set = EasyOptions(handle: handle)
        try applyCommon(url: url, target: target, timeLimit: timeLimit)
        try set.set(CURLOPT_CONNECT_ONLY, 1)
        try set.set(CURLOPT_CERTINFO, true)
        try applyTLS(target.tls)
        try set.set(CURLOPT_SSL_VERIFYPEER, false)
        try set.set(CURLOPT_SSL_VERIFYHOST, 0)
    }

    /// Forgets the previous request: options, headers, the body search and the error texts. The
    /// body is kept (up to max_body) and headers read only for conditions that need them.
    private func reset(needle: String?, connectOnly: Bool, conditions: ResponseConditions = ResponseConditions()) throws
    {
        pw_curl_easy_reset(handle)
        pw_curl_slist_free_all(headerList)
        headerList = nil
        self.connectOnly = connectOnly
        self.conditions = conditions
        body.reset(needle: needle, keepUpTo: conditions.keepsBody ? conditions.maxBody : nil)
        responseHeaders.reset(names: conditions.headers.map(\.name))
        errorBuffer[0] = 0
        socketErrno.pointee = 0
        guard pw_curl_easy_record_socket_errno(handle, socketErrno) == CURLE_OK else {
            throw CurlSetupError(description: "libcurl refused the open-socket callback")
        }
    }

    private func applyCommon(url: String, target: TargetSpec, timeLimit: ConfigDuration?) throws {
        let set = EasyOptions(handle: handle)
        try set.set(CURLOPT_URL, string: url)
        // libcurl must not use signals in a multi-threaded host.
        try set.set(CURLOPT_NOSIGNAL, true)
        try set.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        try set.set(CURLOPT_PROTOCOLS_STR, string: "http,https")
        try set.set(CURLOPT_USERAGENT, string: Self.userAgent)
        let limit = timeLimit ?? target.timeout
        self.timeLimit = limit
        try set.set(CURLOPT_TIMEOUT_MS, Int(max(1, limit.nanoseconds / 1_000_000)))
        switch target.ipVersion {
        case .any: try set.set(CURLOPT_IPRESOLVE, Int(CURL_IPRESOLVE_WHATEVER))
        case .v4: try set.set(CURLOPT_IPRESOLVE, Int(CURL_IPRESOLVE_V4))
        case .v6: try set.set(CURLOPT_IPRESOLVE, Int(CURL_IPRESOLVE_V6))
        }
        if target.freshConnection {
            // Each sample pays for DNS, connect and TLS afresh, so those phases are measured
            // every time instead of being hidden by cached names, connections and sessions.
            try set.set(CURLOPT_FRESH_CONNECT, true)
            try set.set(CURLOPT_FORBID_REUSE, true)
            try set.set(CURLOPT_DNS_CACHE_TIMEOUT, 0)
            try set.set(CURLOPT_SSL_SESSIONID_CACHE, false)
        }
    }

    private func applyTLS(_ tls: TargetSpec.TLS) throws {
        let set = EasyOptions(handle: handle)
        if let caFile = tls.caFile { try set.set(CURLOPT_CAINFO, string: caFile) }
        if let clientCert = tls.clientCert { try set.set(CURLOPT_SSLCERT, string: clientCert) }
        if let clientKey = tls.clientKey { try set.set(CURLOPT_SSLKEY, string: clientKey) }
        if tls.insecure {
            try set.set(CURLOPT_SSL_VERIFYPEER, false)
            try set.set(CURLOPT_SSL_VERIFYHOST, 0)
        }
    }

    /// Reads the outcome; call right after libcurl reported the transfer done.
    func result(_ code: CURLcode) -> TransferResult {
        let info = EasyInfo(handle: handle)
        // The body was cut at max_body on purpose: the response is judged on what arrived.
        let cut = code == CURLE_WRITE_ERROR && body.cut
        var result = TransferResult(code: cut ? CURLE_OK : code)
        result.bodyCut = cut
        result.osErrno = Int32(truncatingIfNeeded: info.long(CURLINFO_OS_ERRNO))
        // A socket that could not even be opened says more than libcurl's "couldn't connect".
        if code != CURLE_OK && socketErrno.pointee != 0 { result.osErrno = socketErrno.pointee }
        result.httpStatus = connectOnly ? 0 : info.long(CURLINFO_RESPONSE_CODE)
        result.timings = PhaseTimings(reading: info)
        result.bodyBytes = info.offset(CURLINFO_SIZE_DOWNLOAD_T)
        result.verifyResult = info.long(CURLINFO_SSL_VERIFYRESULT)
        result.certificateNotAfter = CertificateDate.leafNotAfter(TransferResult.certificateFields(info))
        result.bodyMatched = body.search.found
        if result.code == CURLE_OK, result.httpStatus > 0, !conditions.isEmpty {
            result.conditionFailures = ConditionJudge(conditions: conditions)
                .failures(body: body.kept, cut: cut, headers: responseHeaders.values)
        }
        body.release()
        result.effectiveURL = effectiveURL
        result.redirectURL = redirectURL
        result.endedOnHTTPS = result.effectiveURL?.lowercased().hasPrefix("https:") ?? false
        result.timeLimit = timeLimit
        if code != CURLE_OK { result.errorDetail = String(cString: errorBuffer) }
        return result
    }

    /// Where the response redirected to, when redirects are not followed.
    var redirectURL: String? {
        var text: UnsafePointer<CChar>?
        guard pw_curl_easy_getinfo_string(handle, CURLINFO_REDIRECT_URL, &text) == CURLE_OK, let text else {
            return nil
        }
        return String(cString: text)
    }

    /// The last URL libcurl requested (after redirects). Holds whatever the configured URL held,
    /// so it is used to connect again, never shown.
    var effectiveURL: String? {
        var text: UnsafePointer<CChar>?
        guard pw_curl_easy_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &text) == CURLE_OK, let text else {
            return nil
        }
        return String(cString: text)
    }

    deinit {
        pw_curl_easy_cleanup(handle)
        pw_curl_slist_free_all(headerList)
        errorBuffer.deallocate()
        socketErrno.deallocate()
    }
}
