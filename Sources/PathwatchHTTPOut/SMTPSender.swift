import CCurlShims

/// Sends each body, a whole mail message (RFC 5322), through libcurl's SMTP: to `smtp://` with
/// STARTTLS required (unless `starttls` is off, for a relay on the host itself), or to
/// `smtps://` with TLS from the start; with AUTH when a user is given. It stands where
/// `HTTPPoster` stands for the other formats (`HTTPPosting`), so the durable queue, retries
/// and pacing are the same. The SMTP server's answer is read as HTTP's would be: accepted is
/// 200, a 4xx reply (try later) 503, a 5xx reply (refused for good: an unknown mailbox, a bad
/// login) 400 with the reply's code. Used only on the sink's delivery thread.
package final class SMTPSender: HTTPPosting {
    /// Who the mail is from and to, and the login.
    package struct Envelope: Sendable {
        package var from: String
        package var to: [String]
        package var username: String?
        package var password: String?
        package var starttls: Bool

        package init(from: String, to: [String], username: String?, password: String?, starttls: Bool) {
            self.from = from
            self.to = to
            self.username = username
            self.password = password
            self.starttls = starttls
        }
    }

    /// The message being sent and how far libcurl has read it.
    private final class Upload {
        var bytes: [UInt8] = []
        var offset = 0
    }

    private let handle: UnsafeMutableRawPointer
    private let collector: ResponseCollector
    private let upload = Upload()
    private var recipients: UnsafeMutablePointer<curl_slist>?

    package init(_ settings: HTTPPostDescription, envelope: Envelope, abort: AbortFlag) throws(HTTPPoster.SetupError) {
        guard curlGlobalInit == CURLE_OK else {
            throw HTTPPoster.SetupError(description: "libcurl failed to initialise")
        }
        guard let handle = pw_curl_easy_init() else {
            throw HTTPPoster.SetupError(description: "libcurl cannot create a handle")
        }
        self.handle = handle
        collector = ResponseCollector(abort: abort)
        for address in envelope.to { recipients = pw_curl_slist_append(recipients, address) }
        let me = Unmanaged.passUnretained(collector).toOpaque()
        let data = Unmanaged.passUnretained(upload).toOpaque()
        // STARTTLS or implicit TLS, required: a mail carries the host's state.
        let tlsUse = envelope.starttls || settings.url.hasPrefix("smtps://") ? CURLUSESSL_ALL : CURLUSESSL_NONE
        var steps: [(CURLoption, CURLcode)] = [
            (CURLOPT_URL, pw_curl_easy_setopt_string(handle, CURLOPT_URL, settings.url)),
            (CURLOPT_NOSIGNAL, pw_curl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)),
            (CURLOPT_PROTOCOLS_STR, pw_curl_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "smtp,smtps")),
            (CURLOPT_USE_SSL, pw_curl_easy_setopt_long(handle, CURLOPT_USE_SSL, Int(tlsUse.rawValue))),
            (CURLOPT_MAIL_FROM, pw_curl_easy_setopt_string(handle, CURLOPT_MAIL_FROM, "<\(envelope.from)>")),
            (
                CURLOPT_MAIL_RCPT,
                pw_curl_easy_setopt_pointer(handle, CURLOPT_MAIL_RCPT, UnsafeMutableRawPointer(recipients))
            ),
            (CURLOPT_UPLOAD, pw_curl_easy_setopt_long(handle, CURLOPT_UPLOAD, 1)),
            (CURLOPT_READFUNCTION, pw_curl_easy_setopt_data_callback(handle, CURLOPT_READFUNCTION, Self.read)),
            (CURLOPT_READDATA, pw_curl_easy_setopt_pointer(handle, CURLOPT_READDATA, data)),
            (
                CURLOPT_TIMEOUT_MS,
                pw_curl_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(settings.timeout.nanoseconds / 1_000_000))
            ),
            (CURLOPT_NOPROGRESS, pw_curl_easy_setopt_long(handle, CURLOPT_NOPROGRESS, 0)),
            (
                CURLOPT_XFERINFOFUNCTION,
                pw_curl_easy_setopt_xferinfo_callback(handle, CURLOPT_XFERINFOFUNCTION, ResponseCollector.progress)
            ),
            (CURLOPT_XFERINFODATA, pw_curl_easy_setopt_pointer(handle, CURLOPT_XFERINFODATA, me)),
        ]
        if let username = envelope.username {
            steps.append((CURLOPT_USERNAME, pw_curl_easy_setopt_string(handle, CURLOPT_USERNAME, username)))
            steps.append(
                (CURLOPT_PASSWORD, pw_curl_easy_setopt_string(handle, CURLOPT_PASSWORD, envelope.password ?? "")))
        }
        steps += HTTPPoster.tlsSteps(handle, settings.tls)
        if let failed = steps.first(where: { $0.1 != CURLE_OK }) {
            pw_curl_easy_cleanup(handle)
            pw_curl_slist_free_all(recipients)
            throw HTTPPoster.SetupError(
                description:
                    "libcurl refused option \(failed.0.rawValue): \(String(cString: pw_curl_easy_strerror(failed.1)))")
        }
    }

    deinit {
        pw_curl_easy_cleanup(handle)
        pw_curl_slist_free_all(recipients)
    }

    /// The connector of a sink that mails (`PushSpec.connect`).
    package static func connector(_ envelope: Envelope) -> HTTPConnector {
        { settings, abort in try SMTPSender(settings, envelope: envelope, abort: abort) }
    }

    /// One mail of `body` (headers and text); `extraHeaders` and `urlSuffix` have no meaning here.
    package func post(_ body: [UInt8], extraHeaders: [String], urlSuffix: String) -> HTTPResponse {
        collector.reset()
        upload.bytes = body
        upload.offset = 0
        _ = pw_curl_easy_setopt_off_t(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(body.count))
        let code = pw_curl_easy_perform(handle)
        var response = HTTPResponse()
        response.curlCode = code
        response.aborted = code == CURLE_ABORTED_BY_CALLBACK
        var reply = 0
        _ = pw_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &reply)
        if code == CURLE_OK {
            response.status = 200
        } else if !response.aborted, (400...599).contains(reply) {
            // The server answered: its reply decides, as an HTTP status would.
            response.curlCode = CURLE_OK
            response.status = reply >= 500 ? 400 : 503
            response.body = Array("SMTP \(reply) (\(String(cString: pw_curl_easy_strerror(code))))".utf8)
        }
        return response
    }

    /// libcurl reads the message from here.
    private static let read: pw_curl_data_callback = { buffer, size, count, userdata in
        guard let buffer, let userdata else { return 0 }
        let upload = Unmanaged<Upload>.fromOpaque(userdata).takeUnretainedValue()
        let n = min(size * count, upload.bytes.count - upload.offset)
        guard n > 0 else { return 0 }
        upload.bytes.withUnsafeBufferPointer { bytes in
            UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + upload.offset, byteCount: n)
        }
        upload.offset += n
        return n
    }
}
