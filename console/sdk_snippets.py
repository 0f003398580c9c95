"""The SDK set-up page's code: how an app calls this service, for Android (Kotlin), iOS (Swift)
and any HTTP client (curl), filled in with one app's values (docs/console.md, "SDK set-up").
Pure: standard library and the links' scheme rule only; no ORM, no request, no clock (the
time the curl examples carry is passed in).

The calls, in order: the install (`POST /api/v1/installs`, once, on the first launch), its
answer (attribution and the deferred deep link, `deepLink`), events in batches with retries
(`POST /api/v1/events`, a client `event_id` per event so a retry is stored once) and, on iOS,
the SKAdNetwork conversion value (`POST /api/v1/conversion-value`). Every request field is
one the API's serializers read (tracking/serializers.py, conversion/serializers.py): the Play
referrer's click and install-begin timestamps are not among them, so they are not sent.

The full API key is never here: it was shown once, when it was created, and the snippets carry
the placeholder `API_KEY_PLACEHOLDER` in its place. When the key to use signs its requests
(`SdkTarget.signing`), every snippet signs each try as fraud/signing.py checks it (docs/fraud.md,
"Request signing"): `X-Signature-Timestamp` (Unix seconds, taken anew for each try) and
`X-Signature: v1=<hex HMAC-SHA256>` of the timestamp, a dot and the exact body bytes sent, keyed
with the signing secret's UTF-8 bytes, which is `SIGNING_SECRET_PLACEHOLDER` here (it too was
shown once). Otherwise the snippets send no signature.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass

from links.destinations import app_scheme

API_KEY_PLACEHOLDER = "YOUR_API_KEY"
SIGNING_SECRET_PLACEHOLDER = "YOUR_SIGNING_SECRET"
SDK_VERSION = "1.0.0"
INSTALLS_PATH = "/api/v1/installs"
EVENTS_PATH = "/api/v1/events"
CONVERSION_VALUE_PATH = "/api/v1/conversion-value"
# Placeholders where the app has no value registered (Settings fills them in).
EXAMPLE_PACKAGE = "com.example.app"
EXAMPLE_BUNDLE_ID = "com.example.app"
EXAMPLE_SCHEME = "yourapp"
# Example identifiers in the curl bodies: Google's documented example advertising id, and fixed
# session and event ids (sending an example twice shows a retry being stored once).
EXAMPLE_GAID = "38400000-8cf0-11bd-b23e-10b96e40000d"
EXAMPLE_IDFA = "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"
EXAMPLE_SESSION_ID = "6f1c2b0e-4d3a-4f7e-9a51-2c8d7b3e9f10"
ORGANIC_PLAY_REFERRER = "utm_source=google-play&utm_medium=organic"
# Kotlin's hard keywords: a package segment spelled like one must be quoted in backticks.
KOTLIN_KEYWORDS = frozenset({
    "as", "break", "class", "continue", "do", "else", "false", "for", "fun", "if", "in",
    "interface", "is", "null", "object", "package", "return", "super", "this", "throw", "true",
    "try", "typealias", "typeof", "val", "var", "when", "while"})

ANDROID, IOS, HTTP = "android", "ios", "http"
GUIDE_LABELS = {ANDROID: "Android (Kotlin)", IOS: "iOS (Swift)", HTTP: "HTTP (curl)"}
# The app's own tab first: an iOS app reads Swift first, an Android app Kotlin, a web app HTTP.
FIRST_GUIDE = {"ios": IOS, "android": ANDROID, "web": HTTP}


@dataclass(frozen=True)
class SdkTarget:
    """What the snippets need of an app and of this service."""

    app_id: str
    base_url: str  # this service's absolute address, e.g. https://attribution.example.com
    platform: str  # the app's: ios, android or web
    bundle_id: str | None = None
    package_name: str | None = None
    url_scheme: str | None = None
    now_ms: int = 0  # the time the curl examples' events carry (Unix milliseconds)
    signing: bool = False  # the key to use signs its requests: the snippets sign them too


@dataclass(frozen=True)
class Snippet:
    slug: str  # unique within the page: the copy button's target
    title: str
    language: str  # kotlin, swift, shell or json
    text: str
    note: str = ""


@dataclass(frozen=True)
class Guide:
    slug: str  # android, ios or http
    label: str
    steps: tuple[Snippet, ...]


def guides(target: SdkTarget) -> list[Guide]:
    """The app's own platform's guide, then any HTTP client's. An app reports installs of its
    own platform only (another platform's install is a 400), so another platform's code would
    only mislead: a web app gets the HTTP guide alone."""
    first = FIRST_GUIDE.get(target.platform, HTTP)
    made = {ANDROID: android_guide, IOS: ios_guide}
    return [made[first](target), http_guide(target)] if first in made else [http_guide(target)]


def _base(target: SdkTarget) -> str:
    return target.base_url.rstrip("/")


def _scheme(target: SdkTarget) -> str:
    return app_scheme(target.url_scheme) or EXAMPLE_SCHEME


def _secrets_words(target: SdkTarget) -> str:
    if target.signing:
        return (f"your key in place of {API_KEY_PLACEHOLDER} and its signing secret in place "
                f"of {SIGNING_SECRET_PLACEHOLDER}")
    return f"your key in place of {API_KEY_PLACEHOLDER}"


def _them(target: SdkTarget) -> str:
    return "both" if target.signing else "it"


def kotlin_string(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")
    return f'"{escaped}"'


def swift_string(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def kotlin_package(package_name: str | None) -> str:
    segments = (package_name or EXAMPLE_PACKAGE).split(".") + ["attribution"]
    return ".".join(f"`{s}`" if s in KOTLIN_KEYWORDS else s for s in segments)


# --- Android (Kotlin) ------------------------------------------------------------------------

def android_guide(target: SdkTarget) -> Guide:
    return Guide(slug=ANDROID, label=GUIDE_LABELS[ANDROID], steps=(
        Snippet("android-setup", "Set-up: dependencies, the app's values, one POST with retries",
                "kotlin", _android_setup(target), note=(
                    f"Put {_secrets_words(target)} (keep {_them(target)} out of source "
                    "control, e.g. in local.properties read into BuildConfig).")),
        Snippet("android-install", "1. Report the install with the Play install referrer",
                "kotlin", _ANDROID_INSTALL, note=(
                    "The Play referrer's referrerClickTimestampSeconds and "
                    "installBeginTimestampSeconds are not sent: the API has no field for "
                    "them. The service times the click when its link redirects and the "
                    "install when this request arrives.")),
        Snippet("android-answer", "2. Read the answer and open the deferred deep link",
                "kotlin", _android_answer(target)),
        Snippet("android-events", "3. Send events in batches, with retries", "kotlin",
                _ANDROID_EVENTS),
    ))


def _android_setup(target: SdkTarget) -> str:
    imports, secret, write, sign = "", "", _KOTLIN_PLAIN_WRITE, ""
    if target.signing:
        imports = "import javax.crypto.Mac\nimport javax.crypto.spec.SecretKeySpec\n"
        secret = (f"const val SIGNING_SECRET = {kotlin_string(SIGNING_SECRET_PLACEHOLDER)}"
                  "  // shown once, beside the key\n")
        write, sign = _KOTLIN_SIGNED_WRITE, _KOTLIN_SIGN
    return f"""// app/build.gradle.kts
dependencies {{
    implementation("com.android.installreferrer:installreferrer:2.2")
    implementation("com.google.android.gms:play-services-ads-identifier:18.0.1")
    implementation("org.jetbrains.kotlinx:kotlinx-coroutines-android:1.8.1")
}}
// AndroidManifest.xml (Android 13+ hands out the advertising id only with it):
// <uses-permission android:name="com.google.android.gms.permission.AD_ID" />
// For Meta's install referrer (Meta ads only), let the app see Meta's apps:
// <queries><package android:name="com.facebook.katana" /></queries>
// <queries><package android:name="com.instagram.android" /></queries>
// <queries><package android:name="com.facebook.lite" /></queries>

// Attribution.kt
package {kotlin_package(target.package_name)}

import java.io.IOException
import java.net.HttpURLConnection
import java.net.URL
{imports}import kotlin.random.Random
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.delay
import kotlinx.coroutines.withContext
import org.json.JSONObject

const val BASE_URL = {kotlin_string(_base(target))}
const val APP_ID = {kotlin_string(target.app_id)}
const val API_KEY = {kotlin_string(API_KEY_PLACEHOLDER)}  // shown once, when the key was created
{secret}const val SDK_VERSION = {kotlin_string(SDK_VERSION)}
// Meta's app id when the app runs Meta ads (the console: app > Settings > Integrations); "" if not.
const val META_APP_ID = ""
const val MAX_ATTEMPTS = 6

/** The service refused the request (a 4xx other than 429): sending it again would fail again. */
class ApiRefused(val status: Int, val body: String) : Exception("HTTP $status: $body")

/** POSTs [body] with the key and answers the response's JSON. Network errors, 429 and 5xx
 *  are retried with exponential backoff and jitter (Retry-After when the service sends one);
 *  other 4xx are not. After the last attempt it throws IOException: keep the data, try later. */
suspend fun postJson(path: String, body: JSONObject): JSONObject {{
    var backoffMs = 1_000L
    for (attempt in 1..MAX_ATTEMPTS) {{
        val answer = try {{
            withContext(Dispatchers.IO) {{ send(path, body) }}
        }} catch (e: IOException) {{
            null  // no answer: the network failed
        }}
        if (answer != null) {{
            if (answer.status in 200..299) return JSONObject(answer.body)
            if (answer.status != 429 && answer.status < 500) {{
                throw ApiRefused(answer.status, answer.body)
            }}
        }}
        if (attempt == MAX_ATTEMPTS) break
        val waitMs = answer?.retryAfterSeconds?.times(1_000) ?: backoffMs
        delay(waitMs + Random.nextLong(waitMs / 2 + 1))
        backoffMs = (backoffMs * 2).coerceAtMost(60_000L)
    }}
    throw IOException("No answer after $MAX_ATTEMPTS attempts")
}}

private class Answer(val status: Int, val body: String, val retryAfterSeconds: Long?)

private fun send(path: String, body: JSONObject): Answer {{
    val connection = URL(BASE_URL + path).openConnection() as HttpURLConnection
    try {{
        connection.requestMethod = "POST"
        connection.connectTimeout = 10_000
        connection.readTimeout = 10_000
        connection.doOutput = true
{write}        val status = connection.responseCode
        val stream = if (status < 400) connection.inputStream else connection.errorStream
        val text = stream?.bufferedReader()?.use {{ it.readText() }}.orEmpty()
        return Answer(status, text, connection.getHeaderField("Retry-After")?.toLongOrNull())
    }} finally {{
        connection.disconnect()
    }}
}}
{sign}"""


_KOTLIN_PLAIN_WRITE = """        connection.setRequestProperty("Content-Type", "application/json")
        connection.setRequestProperty("X-API-Key", API_KEY)
        connection.outputStream.use { it.write(body.toString().toByteArray()) }
"""

# Each try signs anew: send() runs once per attempt, so a retry carries a fresh timestamp.
_KOTLIN_SIGNED_WRITE = """\
        val bytes = body.toString().toByteArray()  // signed and sent: the same bytes
        val timestamp = (System.currentTimeMillis() / 1000).toString()
        connection.setRequestProperty("Content-Type", "application/json")
        connection.setRequestProperty("X-API-Key", API_KEY)
        connection.setRequestProperty("X-Signature-Timestamp", timestamp)
        connection.setRequestProperty("X-Signature", "v1=" + sign(timestamp, bytes))
        connection.outputStream.use { it.write(bytes) }
"""

_KOTLIN_SIGN = """
/** X-Signature's value: the hex HMAC-SHA256 of the timestamp, a dot and the body's bytes, keyed
 *  with the signing secret's UTF-8 bytes. */
private fun sign(timestamp: String, body: ByteArray): String {
    val mac = Mac.getInstance("HmacSHA256")
    mac.init(SecretKeySpec(SIGNING_SECRET.toByteArray(Charsets.UTF_8), "HmacSHA256"))
    mac.update("$timestamp.".toByteArray(Charsets.UTF_8))
    return mac.doFinal(body).joinToString("") { "%02x".format(it) }
}
"""


_ANDROID_INSTALL = """import android.content.Context
import android.net.Uri
import android.os.Build
import com.android.installreferrer.api.InstallReferrerClient
import com.android.installreferrer.api.InstallReferrerStateListener
import com.google.android.gms.ads.identifier.AdvertisingIdClient
import java.util.Locale
import java.util.TimeZone
import kotlin.coroutines.resume
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.suspendCancellableCoroutine
import kotlinx.coroutines.withContext
import org.json.JSONObject

/** The Play install referrer (Google's Install Referrer library), or null where Play has none
 *  to give: the app was not installed from Play, or Play's service is unavailable. */
suspend fun playInstallReferrer(context: Context): String? = suspendCancellableCoroutine { cont ->
    val client = InstallReferrerClient.newBuilder(context).build()
    client.startConnection(object : InstallReferrerStateListener {
        override fun onInstallReferrerSetupFinished(responseCode: Int) {
            val referrer = if (responseCode == InstallReferrerClient.InstallReferrerResponse.OK) {
                // ReferrerDetails also has referrerClickTimestampSeconds and
                // installBeginTimestampSeconds; the API takes no field for them: not sent.
                runCatching { client.installReferrer.installReferrer }.getOrNull()
            } else {
                null
            }
            client.endConnection()
            if (cont.isActive) cont.resume(referrer)
        }

        override fun onInstallReferrerServiceDisconnected() {
            if (cont.isActive) cont.resume(null)
        }
    })
}

/** Meta's install referrer, read from the Facebook, Instagram or Facebook Lite app (it covers
 *  view-through and installs in a later session than the ad's click, which the Play referrer
 *  does not), or null: no Meta app, no Meta ad, or no META_APP_ID. Sent as it is read: the
 *  service decrypts it with the app's key (docs/networks.md). */
fun metaInstallReferrer(context: Context): JSONObject? {
    if (META_APP_ID.isEmpty()) return null
    val providers = listOf("com.facebook.katana.provider.InstallReferrerProvider",
                           "com.instagram.contentprovider.InstallReferrerProvider",
                           "com.facebook.lite.provider.InstallReferrerProvider")
    val authority = providers.firstOrNull {
        context.packageManager.resolveContentProvider(it, 0) != null
    } ?: return null
    val uri = Uri.parse("content://$authority/$META_APP_ID")
    val projection = arrayOf("install_referrer", "is_ct", "actual_timestamp")
    return runCatching {
        context.contentResolver.query(uri, projection, null, null, null)?.use { cursor ->
            if (!cursor.moveToFirst()) return@use null
            val referrer = cursor.getString(cursor.getColumnIndexOrThrow("install_referrer"))
                ?: return@use null
            JSONObject()
                .put("install_referrer", referrer)
                .put("is_ct", cursor.getInt(cursor.getColumnIndexOrThrow("is_ct")))
                .put("actual_timestamp",
                     cursor.getLong(cursor.getColumnIndexOrThrow("actual_timestamp")))
        }
    }.getOrNull()
}

/** The advertising id (GAID), or null when the user opted out or Play services are missing. */
suspend fun advertisingId(context: Context): String? = withContext(Dispatchers.IO) {
    runCatching { AdvertisingIdClient.getAdvertisingIdInfo(context) }.getOrNull()
        ?.takeUnless { it.isLimitAdTrackingEnabled }?.id
}

/** Reports the install once, on the first launch, and answers its attribution (the
 *  response's `data`); null on later launches. Events send the same device id. */
suspend fun reportInstall(context: Context): JSONObject? {
    val prefs = context.getSharedPreferences("attribution", Context.MODE_PRIVATE)
    if (prefs.getBoolean("install_reported", false)) return null
    val deviceId = advertisingId(context)
    val body = JSONObject()
        .put("app_id", APP_ID)
        .put("platform", "android")
        .put("sdk_version", SDK_VERSION)
        .put("os_version", Build.VERSION.RELEASE)
        .put("device_model", Build.MODEL)
        .put("language", Locale.getDefault().toLanguageTag())
        .put("timezone", TimeZone.getDefault().id)
    deviceId?.let { body.put("device_id", it) }
    playInstallReferrer(context)?.let { body.put("install_referrer", it) }
    metaInstallReferrer(context)?.let { body.put("meta_install_referrer", it) }
    val data = postJson("/api/v1/installs", body).getJSONObject("data")
    prefs.edit().putBoolean("install_reported", true).putString("device_id", deviceId).apply()
    return data
}
"""


def _android_answer(target: SdkTarget) -> str:
    return f"""import android.app.Activity
import android.content.Intent
import android.net.Uri
import android.util.Log
import org.json.JSONObject

/** The install's attribution, and the deferred deep link: when the ad's click came through
 *  a short link, `deepLink` is {{"value", "params", "link_id"}} (else null), and this first
 *  launch opens it in the app's own scheme, which the app's intent filter already routes. */
fun handleInstallAnswer(activity: Activity, data: JSONObject) {{
    val source = if (data.isNull("mediaSource")) "organic" else data.getString("mediaSource")
    val campaign = if (data.isNull("campaignId")) "" else data.getString("campaignId")
    Log.i("Attribution", "${{data.getString("matchType")}}: $source $campaign")
    val deepLink = data.optJSONObject("deepLink") ?: return
    val value = if (deepLink.isNull("value")) return else deepLink.getString("value")
    val params = deepLink.getJSONObject("params")
    val address = if ("://" in value) value else {kotlin_string(_scheme(target) + "://")} + value
    val uri = Uri.parse(address).buildUpon()
        .apply {{ params.keys().forEach {{ appendQueryParameter(it, params.getString(it)) }} }}
        .build()
    activity.startActivity(Intent(Intent.ACTION_VIEW, uri).setPackage(activity.packageName))
}}

// On the first launch, e.g. in the launcher activity:
// lifecycleScope.launch {{
//     reportInstall(this@MainActivity)?.let {{ handleInstallAnswer(this@MainActivity, it) }}
// }}
"""


_ANDROID_EVENTS = """import android.content.Context
import java.io.IOException
import java.util.UUID
import kotlinx.coroutines.sync.Mutex
import kotlinx.coroutines.sync.withLock
import org.json.JSONArray
import org.json.JSONObject

/** Events wait here and go in batches of up to 100 (the API takes 500). Each event has its
 *  own event_id, so a batch sent again after a lost answer is stored once. */
object Events {
    private val pending = mutableListOf<JSONObject>()
    private val sending = Mutex()
    private val sessionId = UUID.randomUUID().toString()  // one per app session

    fun track(name: String, properties: Map<String, Any?> = emptyMap()) {
        val event = JSONObject()
            .put("event_id", UUID.randomUUID().toString())
            .put("event_name", name)
            .put("properties", JSONObject(properties))
            .put("timestamp", System.currentTimeMillis())
            .put("session_id", sessionId)
        synchronized(pending) { pending += event }
    }

    /** Revenue is `amount` and `currency` (ISO 4217) in the properties; a refund is negative. */
    fun trackPurchase(amount: Double, currency: String) =
        track("purchase", mapOf("amount" to amount, "currency" to currency))

    /** Sends what is queued: every 30 s or so, and when the app goes to the background. */
    suspend fun flush(context: Context) = sending.withLock {
        val deviceId = context.getSharedPreferences("attribution", Context.MODE_PRIVATE)
            .getString("device_id", null)
        while (true) {
            val batch = synchronized(pending) { pending.take(100) }
            if (batch.isEmpty()) break
            val body = JSONObject()
                .put("app_id", APP_ID)
                .put("sdk_version", SDK_VERSION)
                .put("events", JSONArray(batch))
            deviceId?.let { body.put("device_id", it) }
            try {
                // data.accepted counts the stored events; data.rejected lists refused ones by
                // index with the reason: fix the code that made them, sending again won't help.
                postJson("/api/v1/events", body)
            } catch (e: IOException) {
                break  // still no answer after the retries: the batch stays for the next flush
            } catch (e: ApiRefused) {
                // 4xx: the same request would be refused again; drop it (and log e.body)
            }
            synchronized(pending) { pending.subList(0, batch.size).clear() }
        }
    }
}
"""


# --- iOS (Swift) ----------------------------------------------------------------------------

def ios_guide(target: SdkTarget) -> Guide:
    return Guide(slug=IOS, label=GUIDE_LABELS[IOS], steps=(
        Snippet("ios-setup", "Set-up: the app's values, one POST with retries", "swift",
                _ios_setup(target), note=(
                    f"Put {_secrets_words(target)} (keep {_them(target)} out of source "
                    "control, e.g. in an .xcconfig file read from Info.plist).")),
        Snippet("ios-install", "1. Report the install with att_status and the AdServices token",
                "swift", _IOS_INSTALL, note=(
                    "att_status is one of authorized, denied, restricted, not_determined. The "
                    "IDFA is sent as device_id only when tracking is authorized; without it "
                    "the install is not deduplicated and its events are not linked to it.")),
        Snippet("ios-answer", "2. Read the answer and open the deferred deep link", "swift",
                _ios_answer(target)),
        Snippet("ios-events", "3. Send events in batches, with retries", "swift", _IOS_EVENTS),
        Snippet("ios-conversion", "4. Set the SKAdNetwork conversion value", "swift",
                _IOS_CONVERSION, note=(
                    "Needs a conversion schema (the SKAdNetwork page); without one the "
                    "service answers 404.")),
    ))


def _ios_setup(target: SdkTarget) -> str:
    imports, secret, body, sign_try, sign = "", "", _SWIFT_PLAIN_BODY, "", ""
    if target.signing:
        imports = "import CryptoKit\n"
        secret = (f"    static let signingSecret = {swift_string(SIGNING_SECRET_PLACEHOLDER)}"
                  "  // shown once, beside the key\n")
        body, sign_try, sign = _SWIFT_SIGNED_BODY, _SWIFT_SIGN_TRY, _SWIFT_SIGN
    return f"""// Attribution.swift
{imports}import Foundation
import os

enum Attribution {{
    static let baseURL = {swift_string(_base(target))}
    static let appID = {swift_string(target.app_id)}
    static let apiKey = {swift_string(API_KEY_PLACEHOLDER)}  // shown once, when the key was created
{secret}    static let sdkVersion = {swift_string(SDK_VERSION)}
    static let log = Logger(subsystem: {swift_string(target.bundle_id or EXAMPLE_BUNDLE_ID)},
                            category: "attribution")
}}

/// The service refused the request (a 4xx other than 429): sending it again would fail again.
struct APIRefused: Error {{
    let status: Int
    let body: String
}}

/// POSTs `body` with the key and answers the response's JSON. Network errors, 429 and 5xx are
/// retried with exponential backoff and jitter (Retry-After when the service sends one); other
/// 4xx are not. After the last attempt it throws URLError: keep the data, try later.
func postJSON(_ path: String, _ body: [String: Any],
              maxAttempts: Int = 6) async throws -> [String: Any] {{
    var request = URLRequest(url: URL(string: Attribution.baseURL + path)!)
    request.httpMethod = "POST"
    request.timeoutInterval = 10
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.setValue(Attribution.apiKey, forHTTPHeaderField: "X-API-Key")
{body}    var backoff = 1.0
    for attempt in 1...maxAttempts {{
        var wait = backoff
{sign_try}        do {{
            let (data, response) = try await URLSession.shared.data(for: request)
            let http = response as? HTTPURLResponse
            let status = http?.statusCode ?? 0
            if (200..<300).contains(status) {{
                return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
            }}
            if status != 429 && status < 500 {{
                throw APIRefused(status: status, body: String(decoding: data, as: UTF8.self))
            }}
            if let after = http?.value(forHTTPHeaderField: "Retry-After"),
               let seconds = Double(after) {{
                wait = seconds
            }}
        }} catch is URLError {{
            // no answer: the network failed
        }}
        if attempt == maxAttempts {{ break }}
        try await Task.sleep(nanoseconds: UInt64((wait + Double.random(in: 0...wait / 2)) * 1e9))
        backoff = min(backoff * 2, 60)
    }}
    throw URLError(.timedOut)
}}
{sign}"""


_SWIFT_PLAIN_BODY = """    request.httpBody = try JSONSerialization.data(withJSONObject: body)
"""

_SWIFT_SIGNED_BODY = """\
    let payload = try JSONSerialization.data(withJSONObject: body)  // signed and sent as is
    request.httpBody = payload
"""

# Inside the loop: each try signs anew, with the time it is sent.
_SWIFT_SIGN_TRY = """        let timestamp = String(Int(Date().timeIntervalSince1970))
        request.setValue(timestamp, forHTTPHeaderField: "X-Signature-Timestamp")
        request.setValue("v1=" + sign(timestamp, payload), forHTTPHeaderField: "X-Signature")
"""

_SWIFT_SIGN = """
/// X-Signature's value: the hex HMAC-SHA256 of the timestamp, a dot and the body's bytes, keyed
/// with the signing secret's UTF-8 bytes.
func sign(_ timestamp: String, _ body: Data) -> String {
    let key = SymmetricKey(data: Data(Attribution.signingSecret.utf8))
    let code = HMAC<SHA256>.authenticationCode(for: Data((timestamp + ".").utf8) + body,
                                               using: key)
    return code.map { String(format: "%02x", $0) }.joined()
}
"""


_IOS_INSTALL = """import AdServices
import AdSupport
import AppTrackingTransparency
import UIKit

/// The App Tracking Transparency answer, spelled as the API takes it.
func attStatus() -> String {
    switch ATTrackingManager.trackingAuthorizationStatus {
    case .authorized: return "authorized"
    case .denied: return "denied"
    case .restricted: return "restricted"
    case .notDetermined: return "not_determined"
    @unknown default: return "not_determined"
    }
}

/// The hardware model, e.g. "iPhone16,1".
func deviceModel() -> String {
    var info = utsname()
    uname(&info)
    return withUnsafeBytes(of: info.machine) {
        String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
    }
}

/// Reports the install once, on the first launch, and answers its attribution (the response's
/// `data`); nil on later launches. If the app asks for tracking permission, ask first
/// (ATTrackingManager.requestTrackingAuthorization): the install is attributed once, when it
/// is reported.
@MainActor
func reportInstall() async throws -> [String: Any]? {
    let defaults = UserDefaults.standard
    guard !defaults.bool(forKey: "attribution.installReported") else { return nil }
    let status = attStatus()
    var body: [String: Any] = [
        "app_id": Attribution.appID,
        "platform": "ios",
        "sdk_version": Attribution.sdkVersion,
        "att_status": status,
        "os_version": UIDevice.current.systemVersion,
        "device_model": deviceModel(),
        "language": Locale.preferredLanguages.first ?? "",
        "timezone": TimeZone.current.identifier,
    ]
    if status == "authorized" {  // the IDFA only with the user's permission
        let idfa = ASIdentifierManager.shared().advertisingIdentifier.uuidString
        body["device_id"] = idfa
        defaults.set(idfa, forKey: "attribution.deviceID")
    }
    if #available(iOS 14.3, *), let token = try? AAAttribution.attributionToken() {
        body["attribution_token"] = token  // Apple Ads: the service asks Apple about it
    }
    let answer = try await postJSON("/api/v1/installs", body)
    defaults.set(true, forKey: "attribution.installReported")
    defaults.set(Date(), forKey: "attribution.installTime")
    return answer["data"] as? [String: Any]
}
"""


def _ios_answer(target: SdkTarget) -> str:
    return f"""import UIKit

/// The install's attribution, and the deferred deep link: when the ad's click came through a
/// short link, `deepLink` is ["value", "params", "link_id"] (else null), and this first launch
/// opens it in the app's own scheme, which onOpenURL / application(_:open:options:) routes.
@MainActor
func handleInstallAnswer(_ data: [String: Any]) {{
    let source = data["mediaSource"] as? String ?? "organic"
    let campaign = data["campaignId"] as? String ?? ""
    Attribution.log.info("\\(data["matchType"] as? String ?? ""): \\(source) \\(campaign)")
    guard let deepLink = data["deepLink"] as? [String: Any],
          let value = deepLink["value"] as? String else {{ return }}
    let params = deepLink["params"] as? [String: String] ?? [:]
    let address = value.contains("://") ? value : {swift_string(_scheme(target) + "://")} + value
    var components = URLComponents(string: address)
    if !params.isEmpty {{
        components?.queryItems = params.sorted {{ $0.key < $1.key }}
            .map {{ URLQueryItem(name: $0.key, value: $0.value) }}
    }}
    if let url = components?.url {{
        UIApplication.shared.open(url)
    }}
}}

// On the first launch:
// Task {{ if let data = try await reportInstall() {{ handleInstallAnswer(data) }} }}
"""


_IOS_EVENTS = """import Foundation

/// Events wait here and go in batches of up to 100 (the API takes 500). Each event has its own
/// event_id, so a batch sent again after a lost answer is stored once.
actor Events {
    static let shared = Events()
    private var pending: [[String: Any]] = []
    private var sending = false
    private let sessionID = UUID().uuidString  // one per app session

    func track(_ name: String, properties: [String: Any] = [:]) {
        pending.append([
            "event_id": UUID().uuidString,
            "event_name": name,
            "properties": properties,
            "timestamp": Int(Date().timeIntervalSince1970 * 1000),
            "session_id": sessionID,
        ])
    }

    /// Revenue is `amount` and `currency` (ISO 4217) in the properties; a refund is negative.
    func trackPurchase(amount: Decimal, currency: String) {
        track("purchase", properties: [
            "amount": NSDecimalNumber(decimal: amount),
            "currency": currency,
        ])
    }

    /// Sends what is queued: every 30 s or so, and when the app goes to the background.
    func flush() async {
        guard !sending else { return }
        sending = true
        defer { sending = false }
        while !pending.isEmpty {
            let batch = Array(pending.prefix(100))
            var body: [String: Any] = [
                "app_id": Attribution.appID,
                "sdk_version": Attribution.sdkVersion,
                "events": batch,
            ]
            if let deviceID = UserDefaults.standard.string(forKey: "attribution.deviceID") {
                body["device_id"] = deviceID
            }
            do {
                // data.accepted counts the stored events; data.rejected lists refused ones by
                // index with the reason: fix the code that made them, sending again won't help.
                _ = try await postJSON("/api/v1/events", body)
            } catch let refused as APIRefused {
                Attribution.log.error("events refused: \\(refused.status) \\(refused.body)")
            } catch {
                return  // still no answer after the retries: the batch stays for the next flush
            }
            pending.removeFirst(batch.count)
        }
    }
}
"""


_IOS_CONVERSION = """import StoreKit

/// Asks the service which SKAdNetwork conversion value the device's events reach under the
/// app's conversion schema, and sets it. Call it after an event that may raise it (a purchase).
/// `events`: the device's events since install, e.g.
/// ["event_name": "purchase", "revenue": 4.99, "currency": "USD", "timestamp": unixMilliseconds]
func updateConversionValue(events: [[String: Any]]) async throws {
    let defaults = UserDefaults.standard
    guard let installTime = defaults.object(forKey: "attribution.installTime") as? Date else {
        return
    }
    let answer = try await postJSON("/api/v1/conversion-value", [
        "app_id": Attribution.appID,
        "install_time": Int(installTime.timeIntervalSince1970 * 1000),
        "events": events,
    ])
    // data: fine (0-63 in the first window, null later), coarse (low, medium, high; null when
    // no rule matched: set nothing), lock_window, window, schema_version, events_counted.
    guard let data = answer["data"] as? [String: Any],
          let coarse = data["coarse"] as? String else { return }
    let fine = data["fine"] as? Int ?? 0  // Apple reads only the coarse value after window 0
    let lock = data["lock_window"] as? Bool ?? false
    if #available(iOS 16.1, *) {
        let coarseValue: SKAdNetwork.CoarseConversionValue =
            coarse == "high" ? .high : coarse == "medium" ? .medium : .low
        try await SKAdNetwork.updatePostbackConversionValue(
            fine, coarseValue: coarseValue, lockWindow: lock)
    } else if #available(iOS 15.4, *) {
        try await SKAdNetwork.updatePostbackConversionValue(fine)
    }
}
"""


# --- Any HTTP client (curl) -----------------------------------------------------------------

def http_guide(target: SdkTarget) -> Guide:
    return Guide(slug=HTTP, label=GUIDE_LABELS[HTTP], steps=(
        Snippet("http-install", "1. Report the install", "shell",
                _curl(target, INSTALLS_PATH, install_body(target)), note=_install_note(target)),
        Snippet("http-answer", "2. The answer (201; 200 for a repeat of a known device)", "json",
                _INSTALL_ANSWER_EXAMPLE, note=(
                    "deepLink is null unless the attributed click came through a short link; "
                    "then value and params are what the link set, for the app to open.")),
        Snippet("http-events", "3. Send events in batches", "shell",
                _curl(target, EVENTS_PATH, events_body(target)), note=(
                    "Up to 500 events a request. A purchase carries amount and currency (ISO "
                    "4217) in its properties. Give each event its own event_id and send the "
                    "same ids again on a retry: the service stores each id once. The answer's "
                    "data.accepted counts the stored events; data.rejected lists refused ones "
                    "by index, with the reason.")),
        Snippet("http-conversion", "4. iOS: the SKAdNetwork conversion value", "shell",
                _curl(target, CONVERSION_VALUE_PATH, conversion_value_body(target)), note=(
                    "The answer's data has fine (0-63 in window 0, null later), coarse (low, "
                    "medium, high; null: set nothing) and lock_window, for "
                    "SKAdNetwork.updatePostbackConversionValue. Needs a conversion schema.")),
    ))


ANY_LANGUAGE_NOTE = (
    "From any language: POST JSON with the headers Content-Type: application/json and "
    "X-API-Key. Retry network errors, 429 and 5xx with exponential backoff and jitter, waiting "
    "at least Retry-After when the answer has one, and send the same body (the same event ids) "
    "again; never retry another 4xx: it would be refused again. Error bodies read "
    "{\"success\": false, \"error\": {\"code\", \"message\", \"details\"}}.")
SIGNING_NOTE = (
    "This key signs its requests, so each request also carries X-Signature-Timestamp (the "
    "current Unix time in seconds) and X-Signature: v1= followed by the hex HMAC-SHA256, keyed "
    "with the signing secret's UTF-8 bytes, of the timestamp, a dot and the body's exact bytes "
    "as sent. Sign each try anew: a timestamp too far from the service's clock (five minutes "
    "by default) is refused, and an app whose signing mode is enforce refuses an unsigned or "
    "wrongly signed request with 401.")


def any_language_note(target: SdkTarget) -> str:
    return f"{ANY_LANGUAGE_NOTE} {SIGNING_NOTE}" if target.signing else ANY_LANGUAGE_NOTE


def install_body(target: SdkTarget) -> dict:
    body = {"app_id": target.app_id, "sdk_version": SDK_VERSION}
    if target.platform == "android":
        body.update(platform="android", device_id=EXAMPLE_GAID,
                    install_referrer=ORGANIC_PLAY_REFERRER, os_version="14",
                    device_model="Pixel 8")
    elif target.platform == "ios":
        body.update(platform="ios", device_id=EXAMPLE_IDFA, att_status="authorized",
                    os_version="17.5", device_model="iPhone16,1")
    else:
        body.update(platform="web")
    body.update(language="en-US", timezone="Europe/Berlin")
    return body


def _install_note(target: SdkTarget) -> str:
    return {
        "android": ("install_referrer is the Play install referrer as read on the device "
                    "(here Play's value for an organic install); device_id the advertising "
                    "id. The referrer's timestamps are not sent: the API has no field for "
                    "them."),
        "ios": ("att_status is one of authorized, denied, restricted, not_determined; send "
                "device_id (the IDFA) only when authorized, and Apple's AdServices token as "
                "attribution_token when the app has one."),
    }.get(target.platform, "A web install has no advertising id or store referrer; the "
                           "service matches it by its address and browser.")


def events_body(target: SdkTarget) -> dict:
    events = [
        {"event_id": "example-1", "event_name": "app_open", "properties": {},
         "timestamp": target.now_ms, "session_id": EXAMPLE_SESSION_ID},
        {"event_id": "example-2", "event_name": "purchase",
         "properties": {"amount": 4.99, "currency": "USD", "product": "gems_100"},
         "timestamp": target.now_ms, "session_id": EXAMPLE_SESSION_ID},
    ]
    body = {"app_id": target.app_id, "sdk_version": SDK_VERSION}
    device_id = install_body(target).get("device_id")
    if device_id:
        body["device_id"] = device_id
    body["events"] = events
    return body


def conversion_value_body(target: SdkTarget) -> dict:
    return {"app_id": target.app_id, "install_time": target.now_ms, "events": [
        {"event_name": "purchase", "revenue": 4.99, "currency": "USD",
         "timestamp": target.now_ms}]}


def _curl(target: SdkTarget, path: str, body: dict) -> str:
    url = shlex.quote(_base(target) + path)
    data = shlex.quote(json.dumps(body, indent=2))
    if not target.signing:
        return (f"curl -sS --retry 5 -X POST {url} \\\n"
                f"  -H 'Content-Type: application/json' \\\n"
                f"  -H 'X-API-Key: {API_KEY_PLACEHOLDER}' \\\n"
                f"  -d {data}")
    # The body goes in a variable first: the signature is over its exact bytes, which
    # --data-binary then sends unchanged. curl's retries (seconds apart) reuse the timestamp,
    # well within the service's five minutes (FRAUD_SIGNATURE_MAX_AGE_SECONDS).
    return (f"BODY={data}\n"
            "TIMESTAMP=$(date +%s)\n"
            "SIGNATURE=$(printf '%s' \"$TIMESTAMP.$BODY\" \\\n"
            f"  | openssl dgst -sha256 -hmac '{SIGNING_SECRET_PLACEHOLDER}' -r"
            " | cut -d' ' -f1)\n"
            f"curl -sS --retry 5 -X POST {url} \\\n"
            f"  -H 'Content-Type: application/json' \\\n"
            f"  -H 'X-API-Key: {API_KEY_PLACEHOLDER}' \\\n"
            "  -H \"X-Signature-Timestamp: $TIMESTAMP\" \\\n"
            "  -H \"X-Signature: v1=$SIGNATURE\" \\\n"
            "  --data-binary \"$BODY\"")


_INSTALL_ANSWER_EXAMPLE = json.dumps({"success": True, "data": {
    "matchType": "install_referrer",
    "confidence": 100.0,
    "mediaSource": "instagram",
    "campaignId": "summer",
    "isOrganic": False,
    "attributedTouchTime": 1767225600000,
    "installId": "01942a6e-3c5d-7a8b-9c0d-1e2f3a4b5c6d",
    "deepLink": {"value": "product/42", "params": {"coupon": "SUMMER10"},
                 "link_id": "01942a6d-0f1e-7d2c-8b3a-4c5d6e7f8a9b"},
}}, indent=2)
