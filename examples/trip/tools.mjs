// The trip example's tools. They answer from the JSON files in ./data, with no network, after a short
// pause so that the parallel steps (weather and sights) visibly overlap in the progress output.
import { readFile } from "node:fs/promises";

const data = async (name) => JSON.parse(await readFile(new URL(`./data/${name}.json`, import.meta.url), "utf8"));

const pause = (ms, signal) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

export async function geocode({ city }, { signal }) {
  await pause(40, signal);
  const found = (await data("cities"))[String(city).toLowerCase()];
  if (!found) throw new Error(`unknown city: ${city}`);
  return found;
}

export async function weather({ lat, lon, days = 3 }, { signal }) {
  await pause(80, signal);
  const forecast = (await data("weather"))[`${lat},${lon}`];
  if (!forecast) throw new Error(`no forecast for ${lat},${lon}`);
  return { days: forecast.slice(0, days) };
}

export async function sights({ city, limit = 5 }, { signal }) {
  await pause(60, signal);
  const list = (await data("sights"))[city] ?? [];
  return { sights: [...list].sort((a, b) => b.rating - a.rating).slice(0, limit) };
}

export async function summarise({ title, text, sights = [], timezone }, { signal }) {
  await pause(20, signal);
  return { title, summary: text, mustSee: sights.map((sight) => sight.name), timezone };
}
