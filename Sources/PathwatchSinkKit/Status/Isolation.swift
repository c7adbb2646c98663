/// Where a probe's plug-in runs (contract §6): in a supervised child process, or in the agent.
package enum Isolation: String, Sendable, Decodable, CustomStringConvertible {
    /// A child process loads the plug-in; whatever it does, the agent keeps running.
    case process
    /// The agent loads the plug-in itself: cheaper, for plug-ins the operator trusts.
    case inline

    package var description: String { rawValue }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        guard let value = Isolation(rawValue: text) else {
            throw DecodingError.dataCorruptedError(
                in: c, debugDescription: "expected \"process\" or \"inline\", found \"\(text)\"")
        }
        self = value
    }
}
