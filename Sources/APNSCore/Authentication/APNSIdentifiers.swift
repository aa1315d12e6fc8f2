/// The shape of Apple's key and team IDs: 10 characters, uppercase letters and digits.
public enum APNSIdentifiers {
    static func check(keyID: String, teamID: String) throws(APNSCredentialError) {
        guard isWellFormed(keyID) else {
            throw APNSCredentialError(
                "key ID '\(keyID)' is not 10 uppercase letters or digits (for example ABC123DEFG)")
        }
        guard isWellFormed(teamID) else {
            throw APNSCredentialError(
                "team ID '\(teamID)' is not 10 uppercase letters or digits (for example DEF123GHIJ)")
        }
    }

    /// Whether `identifier` has the shape of an Apple key or team ID.
    public static func isWellFormed(_ identifier: String) -> Bool {
        identifier.utf8.count == 10
            && identifier.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }
    }
}
