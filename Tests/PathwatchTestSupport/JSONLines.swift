import Foundation

/// Parses one JSON document (a status document or an event) for assertions in tests.
public func parseJSONObject(_ text: String) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
        throw TestFailure("not a JSON object: \(text.prefix(200))")
    }
    return object
}
