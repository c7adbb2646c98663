import CCurlShims
import PathwatchJSON

/// `pathwatch status`: asks a running agent's http sink for its status document (live values,
/// not a fresh sample), through libcurl like every other request the agent makes.
package enum LiveStatusClient {
    package static let bodyLimit = 16 * 1024 * 1024

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// How to ask an agent: its `/status` URL and the credentials it wants.
    package struct Endpoint: Sendable, Equatable {
        package var url: String
        package var token: String?
        /// TLS: the CA (or certificate) to trust, a client certificate and key, and the name to
        /// ask for when the certificate does not carry the loopback address.
        package var caFile: String?
        package var certFile: String?
        package var keyFile: String?
        package var serverName: String?
        package var user: String?
        package var password: String?

        package init(url: String, token: String? = nil) {
            self.url = url
            self.token = token
        }
    }

    /// The environment variable `pathwatch status` takes a basic-auth password from.
    package static let passwordVariable = "PATHWATCH_PASSWORD"

    /// The URL of `/status` on an http sink, and what it takes to be let in: the sink's token,
    /// its `client` settings (the CA defaults to the sink's own certificate, trusted as it is),
    /// and the password from `PATHWATCH_PASSWORD`.
    package static func endpoint(of settings: HTTPSinkSettings, environment: [String: String] = [:]) -> Endpoint {
        let client = settings.client ?? LiveClientSettings()
        var base = settings.listen.localURL(scheme: settings.tls == nil ? "http" : "https")
        if let name = client.serverName, settings.tls != nil { base = "https://\(name):\(settings.listen.port)" }
        var endpoint = Endpoint(url: "\(base)/status", token: settings.token)
        if let tls = settings.tls {
            endpoint.caFile = client.caFile ?? tls.certFile
            endpoint.certFile = client.certFile
            endpoint.keyFile = client.keyFile
            endpoint.serverName = client.serverName
        }
        endpoint.user = client.user
        endpoint.password = environment[passwordVariable]
        return endpoint
    }

    /// GETs `url` and parses the document; a refused connection, a timeout, a status other than
    /// 200 or a body that is not a JSON object is a failure saying which.
    package static func fetch(_ url: String, token: String?, timeoutSeconds: Double) -> Result<JSONValue, Failure> {
        fetch(Endpoint(url: url, token: token), timeoutSeconds: timeoutSeconds)
    }

    package static func fetch(_ endpoint: Endpoint, timeoutSeconds: Double) -> Result<JSONValue, Failure> {
        let url = endpoint.url
        guard pw_curl_global_init(pw_curl_global_default) == CURLE_OK, let handle = pw_curl_easy_init() else {
            return .failure(Failure(description: "libcurl cannot be used"))
        }
        defer { pw_curl_easy_cleanup(handle) }
        let body = BodyCollector()
        let me = Unmanaged.passUnretained(body).toOpaque()
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { pw_curl_slist_free_all(headers) }
        headers = pw_curl_slist_append(headers, "Accept: application/json")
        if let token = endpoint.token, endpoint.user == nil {
            headers = pw_curl_slist_append(headers, "Authorization: Bearer \(token)")
        }
        var resolve: UnsafeMutablePointer<curl_slist>?
        defer { pw_curl_slist_free_all(resolve) }
        if let name = endpoint.serverName, let port = Self.port(of: url) {
            // The certificate's name, reached on this host: ask for it, connect to loopback.
            resolve = pw_curl_slist_append(resolve, "\(name):\(port):127.0.0.1")
            _ = pw_curl_easy_setopt_pointer(handle, CURLOPT_RESOLVE, UnsafeMutableRawPointer(resolve))
        }
        if let caFile = endpoint.caFile { _ = pw_curl_easy_setopt_string(handle, CURLOPT_CAINFO, caFile) }
        if let certFile = endpoint.certFile { _ = pw_curl_easy_setopt_string(handle, CURLOPT_SSLCERT, certFile) }
        if let keyFile = endpoint.keyFile { _ = pw_curl_easy_setopt_string(handle, CURLOPT_SSLKEY, keyFile) }
        if let user = endpoint.user {
            _ = pw_curl_easy_setopt_long(handle, CURLOPT_HTTPAUTH, 1)  // CURLAUTH_BASIC, a macro Swift does not import
            _ = pw_curl_easy_setopt_string(handle, CURLOPT_USERPWD, "\(user):\(endpoint.password ?? "")")
        }
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
            return .failure(
                Failure(description: "no agent answered at \(where_): \(String(cString: pw_curl_easy_strerror(code)))"))
        }
        var status = 0
        _ = pw_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        guard status == 200 else {
            let hint =
                status == 401
                ? " (the agent wants a login: the http sink's token, or its client.user with the password in \(passwordVariable))"
                : ""
            return .failure(Failure(description: "the agent at \(where_) answered HTTP \(status)\(hint)"))
        }
        guard !body.overflowed, let document = try? JSONParser.parse(bytes: body.bytes), document.objectValue != nil
        else {
            return .failure(Failure(description: "the answer from \(where_) is not a status document"))
        }
        return .success(document)
    }

    private static func port(of url: String) -> Int? {
        let afterScheme = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        guard afterScheme.count > 2, let colon = afterScheme[2].lastIndex(of: ":") else { return nil }
        return Int(afterScheme[2][afterScheme[2].index(after: colon)...])
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
            buffer.withMemoryRebound(to: UInt8.self, capacity: total) {
                me.bytes += UnsafeBufferPointer(start: $0, count: total)
            }
            return total
        }
    }
}
