import PathwatchProbeKit

/// The record types a query may ask for, with their wire codes (RFC 1035, RFC 3596).
enum RecordType: String, Decodable, CaseIterable {
    case A, AAAA, CNAME, MX, TXT, NS, SOA, PTR

    var code: UInt16 {
        switch self {
        case .A: 1
        case .NS: 2
        case .CNAME: 5
        case .SOA: 6
        case .PTR: 12
        case .MX: 15
        case .TXT: 16
        case .AAAA: 28
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let type = RecordType(rawValue: text.uppercased()) else {
            let all = RecordType.allCases.map(\.rawValue).joined(separator: ", ")
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected one of \(all)")
        }
        self = type
    }

    /// Whose answers are domain names, compared without case and trailing dot.
    var answersAreNames: Bool { self == .CNAME || self == .NS || self == .PTR }
}

/// Response codes by name (RFC 1035 §4.1.1, RFC 6895).
enum ResponseCode {
    static let names = [
        "NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED", "YXDOMAIN", "YXRRSET", "NXRRSET", "NOTAUTH",
        "NOTZONE",
    ]

    static func name(_ code: Int) -> String { names.indices.contains(code) ? names[code] : "RCODE\(code)" }

    static func code(_ name: String) -> Int? { names.firstIndex(of: name.uppercased()) }

    /// The resolver did its job: an answer, or the authoritative word that there is none.
    static func meansWorking(_ code: Int) -> Bool { code == 0 || code == 3 }
}
