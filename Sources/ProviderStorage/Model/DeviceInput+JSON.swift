package import APNSCore

extension DeviceInput {
    /// A registration read from a JSON object already parsed and checked (``StrictInput``), as the import route
    /// reads up to 100,000 at once without a second pass through a decoder. `field` names it in errors
    /// (`devices[3]`); a field of the wrong type is named with what it must be.
    package init(json: JSONValue, field: String) throws(ProviderError) {
        guard let object = json.object else { throw .invalid(field: field, message: "must be an object") }
        func string(_ key: CodingKeys) throws(ProviderError) -> String? {
            switch object[key.rawValue] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            default: throw .invalid(field: "\(field).\(key.rawValue)", message: "must be a string")
            }
        }
        guard let token = try string(.token) else {
            throw .invalid(field: "\(field).token", message: "is required")
        }
        self.init(token: token)
        userID = try string(.userID)
        locale = try string(.locale)
        timeZone = try string(.timeZone)
        appVersion = try string(.appVersion)
        publicKey = try string(.publicKey)
        bundleID = try string(.bundleID)
        environment = try string(.environment)
        userToken = try string(.userToken)
        replaces = try string(.replaces)
        switch object[CodingKeys.attributes.rawValue] {
        case nil, .null?: attributes = nil
        case .object(let members)?:
            var attributes: [String: String] = [:]
            for member in members.members {
                guard case .string(let value) = member.value else {
                    throw .invalid(field: "\(field).attributes.\(member.key)", message: "must be a string")
                }
                attributes[member.key] = value
            }
            self.attributes = attributes
        default: throw .invalid(field: "\(field).attributes", message: "must be an object of strings")
        }
        switch object[CodingKeys.tags.rawValue] {
        case nil, .null?: tags = nil
        case .array(let values)?:
            var tags: [String] = []
            tags.reserveCapacity(values.count)
            for (index, value) in values.enumerated() {
                guard case .string(let tag) = value else {
                    throw .invalid(field: "\(field).tags[\(index)]", message: "must be a string")
                }
                tags.append(tag)
            }
            self.tags = tags
        default: throw .invalid(field: "\(field).tags", message: "must be an array")
        }
    }
}
