#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads the dates libcurl reports in CURLINFO_CERTINFO. With OpenSSL they are printed by
/// ASN1_TIME_print: "Mar  5 09:30:00 2027 GMT" (day padded with a space, seconds possibly with a
/// fraction). Returns seconds since the epoch, or nil for anything else.
enum CertificateDate {
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func parse(_ text: String) -> Int64? {
        let fields = text.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 5, fields[4] == "GMT",
            let month = months.firstIndex(where: { $0 == fields[0] }),
            let day = Int32(fields[1]), (1...31).contains(day),
            let year = Int32(fields[3]), (1950...9999).contains(year)
        else { return nil }
        let clock = fields[2].split(separator: ":")
        guard clock.count == 3, let hour = Int32(clock[0]), let minute = Int32(clock[1]),
            let second = Double(clock[2]), (0...23).contains(hour), (0...59).contains(minute), (0..<61).contains(second)
        else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = Int32(month)
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = Int32(second)
        return Int64(timegm(&parts))
    }

    /// The "Expire date" (notAfter) of the first certificate in libcurl's list, the server's own.
    static func leafNotAfter(_ certificates: [[String]]) -> Int64? {
        guard let leaf = certificates.first else { return nil }
        for field in leaf where field.hasPrefix("Expire date:") {
            return parse(String(field.dropFirst("Expire date:".count)))
        }
        return nil
    }
}
