import PathwatchJSON
import PathwatchProbeKit

/// The probe's `config` object, decoded strictly (unknown keys are errors with their path).
struct ConnectivityConfig: Decodable {
    var url: String
    var expectStatus: StatusCodes?
    var expectBody: String?
    var timeout: ConfigDuration?

    enum CodingKeys: String, CodingKey {
        case url, timeout
        case expectStatus = "expect_status"
        case expectBody = "expect_body"
    }

    /// 204, as ChromeOS's `generate_204` and Android's portal checks expect.
    static let defaultStatus = [204]
    static let defaultTimeout = ConfigDuration.seconds(5)
}

/// The status codes that mean "the check URL itself answered": one code or a list of them.
struct StatusCodes: Decodable, Equatable {
    var codes: [Int]
    /// Written as a list (errors then name the element: `expect_status[1]`).
    var isList: Bool

    init(from decoder: any Decoder) throws {
        if var list = try? decoder.unkeyedContainer() {
            var codes: [Int] = []
            while !list.isAtEnd { codes.append(try list.decode(Int.self)) }
            self.codes = codes
            isList = true
        } else {
            codes = [try decoder.singleValueContainer().decode(Int.self)]
            isList = false
        }
    }
}
