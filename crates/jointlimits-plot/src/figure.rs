//! A figure draws itself on any plotters backend; here it becomes PNG bytes or SVG text.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::style;

/// Why a figure could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The drawing backend failed.
    #[error("drawing failed: {0}")]
    Drawing(String),
    /// PNG encoding failed.
    #[error("PNG encoding failed: {0}")]
    Png(#[from] png::EncodingError),
}

/// Something drawable at a fixed size in pixels.
pub trait Figure {
    /// Width and height in pixels.
    fn size(&self) -> (u32, u32);

    /// Draws the figure on `root`, which is [`Figure::size`] pixels large and already white.
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>;
}

fn drawing_error<E: std::fmt::Debug>(error: E) -> PlotError {
    PlotError::Drawing(format!("{error:?}"))
}

/// The figure as an 8-bit RGB PNG.
pub fn to_png(figure: &impl Figure) -> Result<Vec<u8>, PlotError> {
    style::register_fonts();
    let (width, height) = figure.size();
    let mut pixels = vec![255u8; width as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(drawing_error)?;
        figure.draw(&root).map_err(drawing_error)?;
        root.present().map_err(drawing_error)?;
    }
    let mut bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut bytes, width, height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Best);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&pixels)?;
    }
    Ok(bytes)
}

/// The figure as SVG text.
pub fn to_svg(figure: &impl Figure) -> Result<String, PlotError> {
    style::register_fonts();
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, figure.size()).into_drawing_area();
        root.fill(&WHITE).map_err(drawing_error)?;
        figure.draw(&root).map_err(drawing_error)?;
        root.present().map_err(drawing_error)?;
    }
    Ok(text)
}
