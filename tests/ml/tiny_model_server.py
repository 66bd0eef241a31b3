"""A chat-completions server on 127.0.0.1 backed by a real tiny transformers model: true log-probabilities.

It renders each request with the model's own chat template the way vLLM does (an assistant message
continued with `continue_final_message`, or a new answer after the generation prompt), decodes the
JPEG data URL, runs the model and returns the top log-probabilities of the next token over the
whole vocabulary. A random tiny model does not write the answer format by itself, so for a
generated answer it stands in for a judge that answers at once, `<answer>{"technique": D, …`,
choosing each digit D greedily among the digits (as constrained decoding would) and reporting the
model's raw log-probabilities at each digit position.
"""

from __future__ import annotations

import base64
import io
import threading
from typing import Any

from PIL import Image

from aesthete_gui.engine.dimensions import DIMENSIONS
from tests.ml.chat_server import Action

DIGITS = ("1", "2", "3", "4", "5")


def decode_image(body: dict[str, Any]) -> Image.Image:
    """The request's image, decoded from its data URL."""
    parts = body["messages"][0]["content"]
    url = next(p["image_url"]["url"] for p in parts if p.get("type") == "image_url")
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB")


class TinyModelScript:
    """The responder: `with ChatServer(TinyModelScript(loaded)) as server`. Requests run one at a time."""

    def __init__(self, loaded: Any) -> None:
        self.loaded = loaded
        self._lock = threading.Lock()

    def _top(self, text: str, image: Image.Image, count: int) -> list[dict[str, Any]]:
        """The top `count` next tokens after `text` (with the image) and their log-probabilities."""
        import torch

        processor, model = self.loaded.processor, self.loaded.model
        inputs = processor(text=[text], images=[image], return_tensors="pt").to(model.device)
        inputs["pixel_values"] = inputs["pixel_values"].to(model.dtype)
        inner = getattr(model, "model", None)
        if inner is not None and hasattr(inner, "rope_deltas"):
            inner.rope_deltas = None
        with torch.inference_mode():
            logits = model(**inputs).logits[0, -1].float()
        logprobs = torch.log_softmax(logits, dim=-1)
        values, ids = logprobs.topk(min(count, logprobs.shape[0]))
        tokenizer = processor.tokenizer
        return [{"token": tokenizer.decode([int(i)]), "logprob": float(v)} for v, i in zip(values, ids, strict=True)]

    def _render(self, body: dict[str, Any]) -> tuple[str, bool]:
        messages = body["messages"]
        text = "".join(p["text"] for p in messages[0]["content"] if p.get("type") == "text")
        chat: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": text}, {"type": "image"}]}]
        processor = self.loaded.processor
        if body.get("continue_final_message"):
            chat.append({"role": "assistant", "content": messages[-1]["content"]})
            rendered = processor.apply_chat_template(chat, continue_final_message=True, add_generation_prompt=False, tokenize=False)
            return rendered, True
        return processor.apply_chat_template(chat, add_generation_prompt=True, tokenize=False), False

    def __call__(self, body: dict[str, Any], call: int) -> Action:
        with self._lock:
            image = decode_image(body)
            count = int(body.get("top_logprobs") or 0)
            rendered, continued = self._render(body)
            if continued:
                top = self._top(rendered, image, count)
                tokens = [{"token": top[0]["token"], "logprob": top[0]["logprob"], "top_logprobs": top}]
                return _reply(top[0]["token"], tokens)
            tokens: list[dict[str, Any]] = []
            answer = ""
            for index, dimension in enumerate(DIMENSIONS):
                opening = ("<answer>{" if index == 0 else ", ") + f'"{dimension}": '
                tokens.append({"token": opening, "logprob": 0.0, "top_logprobs": []})
                answer += opening
                top = self._top(rendered + answer, image, count)
                digit = max((e for e in top if e["token"] in DIGITS), key=lambda e: e["logprob"], default={"token": "3"})
                tokens.append({"token": digit["token"], "logprob": digit.get("logprob", 0.0), "top_logprobs": top})
                answer += digit["token"]
            tokens.append({"token": "}</answer>", "logprob": 0.0, "top_logprobs": []})
            return _reply(answer + "}</answer>", tokens)


def _reply(content: str, tokens: list[dict[str, Any]]) -> Action:
    choice = {"index": 0, "message": {"role": "assistant", "content": content}, "logprobs": {"content": tokens}}
    return Action(body={"choices": [choice]})
