import CCurlShims

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// libcurl's process-wide set-up, done once per process before the first handle (Swift runs a
/// global's initializer exactly once, thread-safely). Never torn down: other libcurl users in the
/// process (the agent's webhook sink) may still need it.
let curlGlobalInit: CURLcode = pw_curl_global_init(pw_curl_global_default)

/// A libcurl call that failed while setting a handle up: a bug or an exhausted resource, never
/// an endpoint's fault, so it ends the sample instead of landing on one check.
struct CurlSetupError: Error, CustomStringConvertible {
    var description: String
}

/// The static English text libcurl has for a code (no URL, header or body in it).
func curlText(_ code: CURLcode) -> String { String(cString: pw_curl_easy_strerror(code)) }

/// Typed setopt calls that turn a failure into a thrown error naming the option.
struct EasyOptions {
    let handle: UnsafeMutableRawPointer

    func set(_ option: CURLoption, _ value: Int) throws {
        try check(pw_curl_easy_setopt_long(handle, option, value), option)
    }
    func set(_ option: CURLoption, _ value: Bool) throws { try set(option, value ? 1 : 0) }
    func set(_ option: CURLoption, string value: String) throws {
        try check(pw_curl_easy_setopt_string(handle, option, value), option)
    }
    func set(_ option: CURLoption, offset value: Int64) throws {
        try check(pw_curl_easy_setopt_off_t(handle, option, curl_off_t(value)), option)
    }
    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) throws {
        try check(pw_curl_easy_setopt_pointer(handle, option, value), option)
    }
    func set(_ option: CURLoption, callback: pw_curl_data_callback) throws {
        try check(pw_curl_easy_setopt_data_callback(handle, option, callback), option)
    }

    private func check(_ code: CURLcode, _ option: CURLoption) throws {
        guard code == CURLE_OK else {
            throw CurlSetupError(description: "libcurl refused option \(option.rawValue): \(curlText(code))")
        }
    }
}

/// Typed getinfo calls; a missing value reads as zero or nil, as it means "did not happen".
struct EasyInfo {
    let handle: UnsafeMutableRawPointer

    func long(_ info: CURLINFO) -> Int {
        var value = 0
        return pw_curl_easy_getinfo_long(handle, info, &value) == CURLE_OK ? value : 0
    }
    func offset(_ info: CURLINFO) -> Int64 {
        var value: curl_off_t = 0
        return pw_curl_easy_getinfo_off_t(handle, info, &value) == CURLE_OK ? Int64(value) : 0
    }
    func pointer(_ info: CURLINFO) -> UnsafeMutableRawPointer? {
        var value: UnsafeMutableRawPointer?
        return pw_curl_easy_getinfo_pointer(handle, info, &value) == CURLE_OK ? value : nil
    }
}
