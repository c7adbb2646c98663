import CCurlShims
import PathwatchJSON
import PathwatchSinkKit

/// libcurl's process-wide set-up, once, before the first handle (thread-safe since libcurl 7.84;
/// a global's initializer also runs exactly once).
let curlGlobalInit: CURLcode = pw_curl_global_init(pw_curl_global_default)

/// What an `HTTPPoster` posts to, and how: the sink's settings reduced to what libcurl needs,
/// so any sink that POSTs (webhook, remote write) shares one poster.
package struct HTTPPostDescription: Sendable {
    package var url: String
    package var contentType: String
    /// `Name: value` lines sent with every request (configured and protocol headers).
    package var headers: [String]
    package var tls: HTTPTLS
    package var timeout: ConfigDuration

    package init(url: String, contentType: String, headers: [String], tls: HTTPTLS, timeout: ConfigDuration) {
        self.url = url
        self.contentType = contentType
        self.headers = headers
        self.tls = tls
        self.timeout = timeout
    }
}

/// POSTs bodies to one URL through one libcurl easy handle, kept for the life of the sink so the
/// connection (and TLS session) is reused from one payload to the next. Used only on the sink's
/// delivery thread.
package final class HTTPPoster {
    package struct SetupError: Error, CustomStringConvertible {
        package var description: String
    }

    private let handle: UnsafeMutableRawPointer
    private let collector: ResponseCollector
    /// Content-Type, Expect and the configured headers; the per-attempt signing headers are
    /// added to a copy for each request.
    private let fixedHeaders: [String]
    /// The configured URL, which an attempt may extend (`PushAttempt.urlSuffix`).
    private let url: String

    package static let userAgent = "pathwatch/\(AgentIdentity.version)"

    package init(_ settings: HTTPPostDescription, abort: AbortFlag) throws(SetupError) {
        guard curlGlobalInit == CURLE_OK else { throw SetupError(description: "libcurl failed to initialise") }
        guard let handle = pw_curl_easy_init() else { throw SetupError(description: "libcurl cannot create a handle") }
        self.handle = handle
        url = settings.url
        collector = ResponseCollector(abort: abort)
        // libcurl sends "Expect: 100-continue" for larger bodies and waits for an answer many
        // receivers never give; an empty Expect turns that off.
        fixedHeaders = ["Content-Type: \(settings.contentType)", "Expect:"] + settings.headers
        let me = Unmanaged.passUnretained(collector).toOpaque()
        var steps: [(CURLoption, CURLcode)] = [
            (CURLOPT_URL, pw_curl_easy_setopt_string(handle, CURLOPT_URL, settings.url)),
            // No signals in a multi-threaded process.
            (CURLOPT_NOSIGNAL, pw_curl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)),
            (CURLOPT_PROTOCOLS_STR, pw_curl_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")),
            (CURLOPT_USERAGENT, pw_curl_easy_setopt_string(handle, CURLOPT_USERAGENT, Self.userAgent)),
            (CURLOPT_POST, pw_curl_easy_setopt_long(handle, CURLOPT_POST, 1)),
            (
                CURLOPT_TIMEOUT_MS,
                pw_curl_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(settings.timeout.nanoseconds / 1_000_000))
            ),
            (CURLOPT_TCP_KEEPALIVE, pw_curl_easy_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 1)),
            (
                CURLOPT_WRITEFUNCTION,
                pw_curl_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, ResponseCollector.writeBody)
            ),
            (CURLOPT_WRITEDATA, pw_curl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, me)),
            (
                CURLOPT_HEADERFUNCTION,
                pw_curl_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, ResponseCollector.readHeader)
            ),
            (CURLOPT_HEADERDATA, pw_curl_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, me)),
            (CURLOPT_NOPROGRESS, pw_curl_easy_setopt_long(handle, CURLOPT_NOPROGRESS, 0)),
            (
                CURLOPT_XFERINFOFUNCTION,
                pw_curl_easy_setopt_xferinfo_callback(handle, CURLOPT_XFERINFOFUNCTION, ResponseCollector.progress)
            ),
            (CURLOPT_XFERINFODATA, pw_curl_easy_setopt_pointer(handle, CURLOPT_XFERINFODATA, me)),
        ]
        steps += Self.tlsSteps(handle, settings.tls)
        if let failed = steps.first(where: { $0.1 != CURLE_OK }) {
            pw_curl_easy_cleanup(handle)
            throw SetupError(
                description:
                    "libcurl refused option \(failed.0.rawValue): \(String(cString: pw_curl_easy_strerror(failed.1)))")
        }
    }

    deinit { pw_curl_easy_cleanup(handle) }

    /// The `tls` settings as libcurl options: a CA file, a client certificate and key, or no
    /// verification at all.
    static func tlsSteps(_ handle: UnsafeMutableRawPointer, _ tls: HTTPTLS) -> [(CURLoption, CURLcode)] {
        var steps: [(CURLoption, CURLcode)] = []
        if let caFile = tls.caFile {
            steps.append((CURLOPT_CAINFO, pw_curl_easy_setopt_string(handle, CURLOPT_CAINFO, caFile)))
        }
        if let cert = tls.clientCert {
            steps.append((CURLOPT_SSLCERT, pw_curl_easy_setopt_string(handle, CURLOPT_SSLCERT, cert)))
        }
        if let key = tls.clientKey {
            steps.append((CURLOPT_SSLKEY, pw_curl_easy_setopt_string(handle, CURLOPT_SSLKEY, key)))
        }
        if tls.insecure {
            steps.append((CURLOPT_SSL_VERIFYPEER, pw_curl_easy_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 0)))
            steps.append((CURLOPT_SSL_VERIFYHOST, pw_curl_easy_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 0)))
        }
        return steps
    }

    /// One POST of `body` with the fixed headers plus `extraHeaders`, to the configured URL
    /// followed by `urlSuffix` (a path under it: Opsgenie's `/<alias>/close`); blocks until the
    /// answer, the timeout, or an abort.
    package func post(_ body: [UInt8], extraHeaders: [String], urlSuffix: String) -> HTTPResponse {
        collector.reset()
        if !urlSuffix.isEmpty { _ = pw_curl_easy_setopt_string(handle, CURLOPT_URL, url + urlSuffix) }
        defer { if !urlSuffix.isEmpty { _ = pw_curl_easy_setopt_string(handle, CURLOPT_URL, url) } }
        var list: UnsafeMutablePointer<curl_slist>?
        defer { pw_curl_slist_free_all(list) }
        for line in fixedHeaders + extraHeaders {
            guard let extended = pw_curl_slist_append(list, line) else {
                return HTTPResponse(curlCode: CURLE_OUT_OF_MEMORY)
            }
            list = extended
        }
        _ = pw_curl_easy_setopt_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list))
        // An empty body still needs a valid pointer, or libcurl would read the body from stdin.
        let bytes = body.isEmpty ? [0] : body
        let code = bytes.withUnsafeBytes { raw -> CURLcode in
            _ = pw_curl_easy_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            // Not copied: the bytes stay alive for the whole perform below.
            _ = pw_curl_easy_setopt_pointer(
                handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress))
            return pw_curl_easy_perform(handle)
        }
        _ = pw_curl_easy_setopt_pointer(handle, CURLOPT_POSTFIELDS, nil)
        _ = pw_curl_easy_setopt_pointer(handle, CURLOPT_HTTPHEADER, nil)
        var response = collector.response
        response.curlCode = code
        response.aborted = code == CURLE_ABORTED_BY_CALLBACK
        var status = 0
        if pw_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK { response.status = status }
        return response
    }
}
