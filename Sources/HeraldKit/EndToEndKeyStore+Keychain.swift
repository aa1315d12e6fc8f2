// The Keychain exists only on Apple platforms (the Security framework): there the end-to-end key is a generic
// password item, shared with the extensions through a keychain access group. Elsewhere ``FileKeyStore`` keeps it.
#if canImport(Security)
    import Crypto
    import Foundation
    import Security

    /// The key in the Keychain: service `Herald.endToEnd`, account the bundle ID, kept on this device only.
    struct KeychainKeyStore: EndToEndKeyStore {
        let account: String
        let accessGroup: String?

        private var query: [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "Herald.endToEnd",
                kSecAttrAccount as String: account,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            return query
        }

        func load() throws(HeraldError) -> Curve25519.KeyAgreement.PrivateKey? {
            var search = query
            search[kSecReturnData as String] = true
            var item: CFTypeRef?
            let status = SecItemCopyMatching(search as CFDictionary, &item)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let data = item as? Data else {
                throw .endToEnd("the Keychain answered \(status) reading the end-to-end key")
            }
            do {
                return try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: data)
            } catch {
                throw .endToEnd("the Keychain's end-to-end key is not an X25519 key")
            }
        }

        func save(_ key: Curve25519.KeyAgreement.PrivateKey) throws(HeraldError) {
            SecItemDelete(query as CFDictionary)
            var item = query
            item[kSecValueData as String] = key.rawRepresentation
            // After the first unlock: a service extension runs while the phone is locked.
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            let status = SecItemAdd(item as CFDictionary, nil)
            guard status == errSecSuccess else {
                throw .storage("the Keychain answered \(status) keeping the end-to-end key")
            }
        }
    }
#endif
