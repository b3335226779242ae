//! Exporting the map's view as PNG or SVG.

use super::*;
use crate::dialog::save_dialog;

/// Saves an exported view: asks where (native save dialog), then writes the PNG (sent as a
/// `data:` URL) or SVG text. Returns the written path, `None` if cancelled.
#[tauri::command]
pub async fn export_view(
    app: AppHandle,
    format: String,
    data: String,
    name: String,
) -> AppResult<Option<String>> {
    blocking(app, move |app, _| {
        let bytes = decode_export(&format, &data)?;
        let Some(path) = save_dialog(app, "Export view", &format!("{name}.{format}"), &format)?
        else {
            return Ok(None);
        };
        rete_explore::store::write_atomic(&path, |w| w.write_all(&bytes))
            .map_err(|e: std::io::Error| AppError::Invalid(format!("{}: {e}", path.display())))?;
        Ok(Some(path.display().to_string()))
    })
    .await
}

/// The bytes of an export: SVG text as is, PNG from a base64 `data:` URL.
pub fn decode_export(format: &str, data: &str) -> AppResult<Vec<u8>> {
    use base64::Engine as _;
    match format {
        "svg"
            if data.trim_start().starts_with("<svg") || data.trim_start().starts_with("<?xml") =>
        {
            Ok(data.as_bytes().to_vec())
        }
        "png" => {
            let b64 = data
                .strip_prefix("data:image/png;base64,")
                .ok_or_else(|| AppError::Invalid("PNG export is not a PNG data URL".into()))?;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(b64)
                .map_err(|e| AppError::Invalid(format!("PNG export: {e}")))?;
            if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
                Ok(bytes)
            } else {
                Err(AppError::Invalid("PNG export is not a PNG image".into()))
            }
        }
        _ => Err(AppError::Invalid(format!("cannot export as {format}"))),
    }
}
