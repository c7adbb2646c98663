import PathwatchAgent
import CCurlShims

/// `pathwatch status`: asks a running agent's http sink for its status document (live values,
/// not a fresh sample), through libcurl like every other request the agent makes.
public enum LiveStatusClient {
    public static let bodyLimit = 16 * 1024 * 1024

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The URL of `/status` on an http sink, and its token.
    public static func endpoint(of settings: HTTPSinkSettings) -> (url: String, token: String?) {
        ("\(settings.listen.localURL)/status", settings.token)
    }

    /// GETs `url` and parses the document; a refused connection, a timeout, a status other than
    /// 200 or a body that is not a JSON object is a failure saying which.
    public static func fetch(_ url: String, token: String?, timeoutSeconds: Double) -> Result<JSONValue, Failure> {
        guard pw_curl_global_init(pw_curl_global_default) == CURLE_OK, let handle = pw_curl_easy_init() else {
            return .failure(Failure(description: "libcurl cannot be used"))
        }
        defer { pw_curl_easy_cleanup(handle) }
        let body = BodyCollector()
        let me = Unmanaged.passUnretained(body).toOpaque()
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { pw_curl_slist_free_all(headers) }
        headers = pw_curl_slist_append(headers, "Accept: application/json")
        if let token { headers = pw_curl_slist_append(headers, "Authorization: Bearer \(token)") }
        _ = pw_curl_easy_setopt_string(handle, CURLOPT_URL, url)
        _ = pw_curl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = pw_curl_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = pw_curl_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(timeoutSeconds * 1000))
        _ = pw_curl_easy_setopt_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headers))
        _ = pw_curl_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, BodyCollector.write)
        _ = pw_curl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, me)
        let code = pw_curl_easy_perform(handle)
        let where_ = url.split(separator: "?").first.map(String.init) ?? url
        guard code == CURLE_OK else {
            return .failure(Failure(description: "no agent answered at \(where_): \(String(cString: pw_curl_easy_strerror(code)))"))
        }
        var status = 0
        _ = pw_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        guard status == 200 else {
            let hint = status == 401 ? " (the agent wants a token: set it in the http sink's configuration)" : ""
            return .failure(Failure(description: "the agent at \(where_) answered HTTP \(status)\(hint)"))
        }
        guard !body.overflowed, let document = try? JSONParser.parse(bytes: body.bytes), document.objectValue != nil else {
            return .failure(Failure(description: "the answer from \(where_) is not a status document"))
        }
        return .success(document)
    }

    private final class BodyCollector {
        var bytes: [UInt8] = []
        var overflowed = false

        static let write: pw_curl_data_callback = { buffer, size, count, userdata in
            let total = size * count
            guard let buffer, let userdata else { return total }
            let me = Unmanaged<BodyCollector>.fromOpaque(userdata).takeUnretainedValue()
            guard me.bytes.count + total <= LiveStatusClient.bodyLimit else {
                me.overflowed = true
                return 0
            }
            buffer.withMemoryRebound(to: UInt8.self, capacity: total) { me.bytes += UnsafeBufferPointer(start: $0, count: total) }
            return total
        }
    }
}
