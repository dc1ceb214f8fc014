"""Fixed texts the chat shows (greeting, hints, refusals). No logic."""

GREETING = """**Godot RAG**: is this Godot 3 or Godot 4 code, and what must change?

Send me one of these:
- a **GDScript snippet** (plain or in ``` fences), with or without a question
- **files**: `.gd`, `.tscn`, `project.godot`, or a **.zip** of the project (paperclip button)
- a **GitHub link**: `https://github.com/owner/repo` or `…/tree/<ref>/<folder>`

Every chunk gets a trace (file and lines, search cues, docs candidates, judgment), then a verdict.
Ask follow-ups in the same thread: *"explain chunk 4"*, *"why is mob.gd flagged?"*.

한국어: 코드를 붙여넣거나 파일/zip 또는 GitHub 링크를 보내 주세요. · 中文：粘贴代码、上传文件或 zip，或发送 GitHub 链接即可。
· Русский: вставьте код, загрузите файлы или zip, или пришлите ссылку на GitHub."""

EMPTY_HINT = (
    "Send some GDScript (or a `.tscn` / `project.godot`), attach files or a `.zip`, "
    "or paste a GitHub link like `https://github.com/owner/repo`."
)

NOT_GITHUB = (
    "I can only fetch public repositories from **github.com** (`https://github.com/owner/repo`, "
    "optionally `/tree/<ref>/<folder>`). For other code, paste it or upload the files or a `.zip`."
)

INTERNAL_ERROR = (
    "Something went wrong on our side, so this analysis stopped (reference `{ref}`). Nothing you sent is lost: "
    "send it again in a **new chat**; if it fails again, give the reference `{ref}` to whoever runs this chat."
)

FETCH_FAILED = (
    "Could not fetch {what}. Check that the repository is **public** on github.com and that the branch, tag "
    "or folder in the link exists (`https://github.com/owner/repo/tree/<ref>/<folder>`). If it does, GitHub "
    "may be unreachable from this server: try again later, or upload the project as a `.zip` instead."
)

QUESTION_WITHOUT_CODE = """Happy to help with that. I answer from your code, so send me some of it:
- paste a **GDScript snippet** (plain or in ``` fences), optionally with your question above it
- attach `.gd`, `.tscn`, `project.godot` files or a **.zip** of the project (paperclip button)
- or paste a **GitHub link**: `https://github.com/owner/repo`

I will say, chunk by chunk with links to the Godot docs, whether it is Godot 3 or Godot 4 and what to change.

한국어: 코드나 파일/zip, GitHub 링크를 보내 주세요. · 中文：请发送代码、文件/zip 或 GitHub 链接。 · Русский: пришлите код, файлы/zip или ссылку на GitHub."""

RESUMABLE = (
    "This thread's analysis was interrupted at **{done} of {total}** chunks. "
    "Finished chunks are kept and will not be judged again."
)

NOTHING_TO_RESUME = "There is no interrupted analysis in this thread."

RUN_BUSY = "This analysis is already running (perhaps in another tab); its progress shows there."

# Clickable example prompts under the greeting: (button label, the message it sends).
EXAMPLES = {
    "godot3": (
        "Try: a Godot 3 player script",
        "Is this Godot 3 or Godot 4, and what must change?\n"
        "extends KinematicBody2D\n\nexport var speed = 200\nvar velocity = Vector2()\n\n"
        "func _physics_process(delta):\n"
        "\tvelocity.x = Input.get_action_strength(\"ui_right\") - Input.get_action_strength(\"ui_left\")\n"
        "\tvelocity = move_and_slide(velocity * speed)\n",
    ),
    "godot4": (
        "Try: a Godot 4 player script",
        "Is this Godot 4 code?\n"
        "extends CharacterBody2D\n\n@export var speed := 200.0\n\n"
        "func _physics_process(delta: float) -> void:\n"
        "\tvelocity = Input.get_vector(\"ui_left\", \"ui_right\", \"ui_up\", \"ui_down\") * speed\n"
        "\tmove_and_slide()\n",
    ),
}

ANSWER_DRAFT = "_Draft: it is checked against the docs before it becomes the answer._\n\n"
"""Shown above streamed tokens; the validated answer (or the template's) replaces the whole message."""
