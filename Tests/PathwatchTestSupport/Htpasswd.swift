import Foundation

/// Password hashes as an operator makes them for the http sink's `basic_auth_users`: Apache's
/// htpasswd (apache2-utils), bcrypt at cost 5 so that tests stay quick.
public enum Htpasswd {
    public static func bcryptHash(_ password: String) throws -> String {
        let result = try run(["htpasswd", "-nbBC", "5", "scraper", password])
        guard result.status == 0, let colon = result.stdout.firstIndex(of: ":") else {
            throw TestFailure("htpasswd: \(result.stderr)")
        }
        return String(result.stdout[result.stdout.index(after: colon)...]).trimmingCharacters(
            in: .whitespacesAndNewlines)
    }
}
