"""The template's sentences in the four languages the intent detector knows (en, ko, zh, ru).

Only the frame is translated; API names, code and quoted docs stay as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

LANGUAGES = ("en", "ko", "zh", "ru")

_P: dict[str, dict[str, str]] = {
    "verdict_godot3": {
        "en": "This is **Godot 3** code: it needs changes to run on Godot 4.",
        "ko": "이 코드는 **Godot 3** 코드입니다. Godot 4에서 실행하려면 수정이 필요합니다.",
        "zh": "这是 **Godot 3** 代码：要在 Godot 4 中运行需要修改。",
        "ru": "Это код **Godot 3**: для Godot 4 его нужно изменить.",
    },
    "verdict_godot4": {
        "en": "This is valid **Godot 4** code; no migration is needed.",
        "ko": "이 코드는 올바른 **Godot 4** 코드입니다. 마이그레이션이 필요 없습니다.",
        "zh": "这是有效的 **Godot 4** 代码，无需迁移。",
        "ru": "Это корректный код **Godot 4**; миграция не нужна.",
    },
    "verdict_mixed": {
        "en": "This code **mixes Godot 3 and Godot 4**: the Godot 3 parts need migrating.",
        "ko": "이 코드는 **Godot 3와 Godot 4가 섞여** 있습니다. Godot 3 부분을 바꿔야 합니다.",
        "zh": "这段代码**混合了 Godot 3 和 Godot 4**：Godot 3 的部分需要迁移。",
        "ru": "Этот код **смешивает Godot 3 и Godot 4**: части Godot 3 нужно перенести.",
    },
    "verdict_ambiguous": {
        "en": "There is no clear Godot 3 or Godot 4 signal in this code.",
        "ko": "이 코드에는 Godot 3 또는 Godot 4의 뚜렷한 신호가 없습니다.",
        "zh": "这段代码中没有明确的 Godot 3 或 Godot 4 信号。",
        "ru": "В этом коде нет явных признаков Godot 3 или Godot 4.",
    },
    "verdict_incomplete": {
        "en": "The analysis is not complete yet, so there is no verdict.",
        "ko": "분석이 아직 끝나지 않아 판정이 없습니다.",
        "zh": "分析尚未完成，因此还没有结论。",
        "ru": "Анализ ещё не завершён, вердикта пока нет.",
    },
    "counts": {
        "en": "Chunks: {g3} Godot 3, {g4} Godot 4, {n} neutral.",
        "ko": "청크: Godot 3 {g3}개, Godot 4 {g4}개, 중립 {n}개.",
        "zh": "代码块：Godot 3 {g3} 个，Godot 4 {g4} 个，中性 {n} 个。",
        "ru": "Фрагменты: Godot 3 — {g3}, Godot 4 — {g4}, нейтральные — {n}.",
    },
    "what_it_does": {
        "en": "### What the code does",
        "ko": "### 코드가 하는 일",
        "zh": "### 这段代码做什么",
        "ru": "### Что делает код",
    },
    "why": {
        "en": "### Why",
        "ko": "### 이유",
        "zh": "### 原因",
        "ru": "### Почему",
    },
    "steps": {
        "en": "### What to change, in order",
        "ko": "### 바꿔야 할 것 (순서대로)",
        "zh": "### 需要修改的内容（按顺序）",
        "ru": "### Что изменить, по порядку",
    },
    "code_head": {
        "en": "### Godot 4 version",
        "ko": "### Godot 4 버전",
        "zh": "### Godot 4 版本",
        "ru": "### Версия для Godot 4",
    },
    "sources": {
        "en": "Sources:",
        "ko": "출처:",
        "zh": "来源：",
        "ru": "Источники:",
    },
    "extends": {
        "en": "`{name}` declares that the script extends the `{base}` class.",
        "ko": "`{name}`: 이 스크립트가 `{base}` 클래스를 상속한다고 선언합니다.",
        "zh": "`{name}`：声明脚本继承 `{base}` 类。",
        "ru": "`{name}`: скрипт наследует класс `{base}`.",
    },
    "function": {
        "en": "`{name}` (L{lines}) uses:",
        "ko": "`{name}` (L{lines})에서 사용하는 것:",
        "zh": "`{name}`（L{lines}）用到：",
        "ru": "`{name}` (L{lines}) использует:",
    },
    "function_plain": {
        "en": "`{name}` (L{lines}): no documented engine API was found in it.",
        "ko": "`{name}` (L{lines}): 문서화된 엔진 API를 찾지 못했습니다.",
        "zh": "`{name}`（L{lines}）：未找到有文档的引擎 API。",
        "ru": "`{name}` (L{lines}): документированных API движка не найдено.",
    },
    "declares": {
        "en": "`{name}` (L{lines}) declares {what}.",
        "ko": "`{name}` (L{lines})은(는) {what}을(를) 선언합니다.",
        "zh": "`{name}`（L{lines}）声明了 {what}。",
        "ru": "`{name}` (L{lines}) объявляет {what}.",
    },
    "change": {
        "en": "Line {line}: `{old}` → `{new}`",
        "ko": "{line}행: `{old}` → `{new}`",
        "zh": "第 {line} 行：`{old}` → `{new}`",
        "ru": "Строка {line}: `{old}` → `{new}`",
    },
    "change_removed": {
        "en": "Line {line}: remove `{old}`{note}",
        "ko": "{line}행: `{old}` 제거{note}",
        "zh": "第 {line} 行：删除 `{old}`{note}",
        "ru": "Строка {line}: удалить `{old}`{note}",
    },
    "change_by_hand": {
        "en": "Line {line}: `{old}` has no one-line replacement; rewrite it from the docs{note}",
        "ko": "{line}행: `{old}`은(는) 한 줄로 바꿀 수 없습니다. 문서를 보고 다시 작성하세요{note}",
        "zh": "第 {line} 行：`{old}` 没有一行的替换；请参照文档改写{note}",
        "ru": "Строка {line}: для `{old}` нет замены в одну строку; перепишите по документации{note}",
    },
    "no_changes": {
        "en": "Nothing needs to change for Godot 4.",
        "ko": "Godot 4를 위해 바꿀 것이 없습니다.",
        "zh": "迁移到 Godot 4 无需任何修改。",
        "ru": "Для Godot 4 ничего менять не нужно.",
    },
    "partial_code": {
        "en": "The Godot 4 version below is written wherever every change is certain; the parts marked "
              "`TODO(godot-rag)` were left as they were, for these reasons:",
        "ko": "아래 Godot 4 버전은 변경이 확실한 부분만 바꾸었습니다. `TODO(godot-rag)` 표시가 있는 부분은 "
              "다음 이유로 그대로 두었습니다:",
        "zh": "下面的 Godot 4 版本只改写了确定的部分；标有 `TODO(godot-rag)` 的部分保持原样，原因如下：",
        "ru": "Ниже версия для Godot 4, переписанная там, где каждое изменение однозначно; части с пометкой "
              "`TODO(godot-rag)` оставлены как были, по этим причинам:",
    },
    "at_line": {
        "en": "{path}, line {line}",
        "ko": "{path} {line}행",
        "zh": "{path} 第 {line} 行",
        "ru": "{path}, строка {line}",
    },
    "in_chunk": {
        "en": "chunk #{n} `{name}`",
        "ko": "청크 #{n} `{name}`",
        "zh": "代码块 #{n} `{name}`",
        "ru": "фрагмент #{n} `{name}`",
    },
    "godot3_form": {"en": "Godot 3:", "ko": "Godot 3:", "zh": "Godot 3：", "ru": "Godot 3:"},
    "godot4_form": {"en": "Godot 4:", "ko": "Godot 4:", "zh": "Godot 4：", "ru": "Godot 4:"},
    "removed_in_4": {
        "en": "Godot 4: remove this line{note}.",
        "ko": "Godot 4: 이 줄을 지우세요{note}.",
        "zh": "Godot 4：删除这一行{note}。",
        "ru": "Godot 4: удалите эту строку{note}.",
    },
    "no_one_line": {
        "en": "Godot 4: there is no one-line replacement{note}; the docs below say how to rewrite it.",
        "ko": "Godot 4: 한 줄로 바꿀 수 없습니다{note}. 아래 문서를 보고 다시 작성하세요.",
        "zh": "Godot 4：没有一行的替换{note}；请参照下面的文档改写。",
        "ru": "Godot 4: замены в одну строку нет{note}; как переписать, сказано в документации ниже.",
    },
    "why_inline": {"en": "Why:", "ko": "이유:", "zh": "原因：", "ru": "Почему:"},
    "docs_say": {"en": "The docs:", "ko": "문서 (영문):", "zh": "文档（英文）：", "ru": "Документация (англ.):"},
    "line_no_change": {
        "en": "Line {line} of `{path}` needs no change for Godot 4. It belongs to {chunk}:",
        "ko": "`{path}`의 {line}행은 Godot 4에서 바꿀 필요가 없습니다. 이 줄은 {chunk}에 속합니다:",
        "zh": "`{path}` 的第 {line} 行在 Godot 4 中无需修改。它属于 {chunk}：",
        "ru": "Строку {line} в `{path}` для Godot 4 менять не нужно. Она входит в {chunk}:",
    },
    "name_no_change": {
        "en": "`{name}` needs no change for Godot 4 in this code.",
        "ko": "이 코드의 `{name}`은(는) Godot 4에서 바꿀 필요가 없습니다.",
        "zh": "这段代码中的 `{name}` 在 Godot 4 中无需修改。",
        "ru": "`{name}` в этом коде для Godot 4 менять не нужно.",
    },
    "kb_renamed": {
        "en": "In Godot 4, `{old}` is `{new}`.",
        "ko": "Godot 4에서 `{old}`은(는) `{new}`입니다.",
        "zh": "在 Godot 4 中，`{old}` 变为 `{new}`。",
        "ru": "В Godot 4 `{old}` — это `{new}`.",
    },
    "kb_gone": {
        "en": "`{old}` has no direct Godot 4 counterpart ({kind}).",
        "ko": "`{old}`은(는) Godot 4에 바로 대응하는 것이 없습니다 ({kind}).",
        "zh": "`{old}` 在 Godot 4 中没有直接对应（{kind}）。",
        "ru": "У `{old}` нет прямого аналога в Godot 4 ({kind}).",
    },
    "kb_not_in_run": {
        "en": "`{name}` does not appear in this run's code; from the docs:",
        "ko": "`{name}`은(는) 이번 코드에 없습니다. 문서에 따르면:",
        "zh": "本次代码中没有 `{name}`；根据文档：",
        "ru": "`{name}` в коде этого запуска нет; по документации:",
    },
    "more_changes": {
        "en": "...and {n} more; ask about a line or a chunk to see them.",
        "ko": "...그 밖에 {n}개가 더 있습니다. 줄이나 청크를 지정해 물어보세요.",
        "zh": "……还有 {n} 处；请指定行或代码块来查看。",
        "ru": "...и ещё {n}; спросите о строке или фрагменте, чтобы их увидеть.",
    },
    # ---- the verdict block, the items and files tables, the sources (the web chat's closing message)
    "ui_verdict": {
        "en": "### Verdict: `{label}` — {what}, {migration}",
        "ko": "### 판정: `{label}` — {what}, {migration}",
        "zh": "### 结论：`{label}` — {what}，{migration}",
        "ru": "### Вердикт: `{label}` — {what}, {migration}",
    },
    "ui_label_godot3": {"en": "Godot 3 code", "ko": "Godot 3 코드", "zh": "Godot 3 代码", "ru": "код Godot 3"},
    "ui_label_godot4": {"en": "Godot 4 code", "ko": "Godot 4 코드", "zh": "Godot 4 代码", "ru": "код Godot 4"},
    "ui_label_mixed": {"en": "a mix of Godot 3 and Godot 4 code", "ko": "Godot 3와 Godot 4 코드가 섞임",
                       "zh": "Godot 3 与 Godot 4 代码混合", "ru": "смесь кода Godot 3 и Godot 4"},
    "ui_label_ambiguous": {"en": "no clear version signal", "ko": "뚜렷한 버전 신호 없음", "zh": "没有明确的版本信号",
                           "ru": "нет явных признаков версии"},
    "ui_migration_required": {"en": "**migration required**", "ko": "**마이그레이션 필요**", "zh": "**需要迁移**",
                              "ru": "**нужна миграция**"},
    "ui_no_migration": {"en": "no migration needed", "ko": "마이그레이션 불필요", "zh": "无需迁移", "ru": "миграция не нужна"},
    "ui_counts_header": {
        "en": "| godot3 chunks | godot4 chunks | neutral chunks | chunks | files |",
        "ko": "| Godot 3 청크 | Godot 4 청크 | 중립 청크 | 청크 | 파일 |",
        "zh": "| Godot 3 代码块 | Godot 4 代码块 | 中性代码块 | 代码块 | 文件 |",
        "ru": "| фрагменты Godot 3 | фрагменты Godot 4 | нейтральные | фрагменты | файлы |",
    },
    "ui_unfinished": {
        "en": "### Analysis {status}\n{done} of {total} chunks are done; the verdict comes when every chunk is judged.",
        "ko": "### 분석 {status}\n{total}개 청크 중 {done}개 완료. 모든 청크가 판정되면 결론이 나옵니다.",
        "zh": "### 分析{status}\n{total} 个代码块中已完成 {done} 个；全部判定后给出结论。",
        "ru": "### Анализ: {status}\nГотово {done} из {total} фрагментов; вердикт будет, когда все будут оценены.",
    },
    "ui_godot3_files": {"en": "Scripts only Godot 3 loads", "ko": "Godot 3에서만 로드되는 스크립트",
                        "zh": "只有 Godot 3 能加载的脚本", "ru": "Скрипты, которые загружает только Godot 3"},
    "ui_leftovers": {"en": "Godot 3 leftovers to check", "ko": "확인할 Godot 3 잔재", "zh": "需要检查的 Godot 3 残留",
                     "ru": "Остатки Godot 3 для проверки"},
    "ui_notes": {"en": "Notes", "ko": "참고", "zh": "备注", "ru": "Примечания"},
    "ui_more": {"en": "…and {n} more in the JSON report.", "ko": "…그 밖에 {n}개는 JSON 보고서에 있습니다.",
                "zh": "……另有 {n} 项见 JSON 报告。", "ru": "…и ещё {n} в JSON-отчёте."},
    "ui_what_to_change": {"en": "#### What to change", "ko": "#### 바꿔야 할 것", "zh": "#### 需要修改的内容",
                          "ru": "#### Что изменить"},
    "ui_items_header": {
        "en": "| where | Godot 3 | Godot 4 | source |",
        "ko": "| 위치 | Godot 3 | Godot 4 | 출처 |",
        "zh": "| 位置 | Godot 3 | Godot 4 | 来源 |",
        "ru": "| где | Godot 3 | Godot 4 | источник |",
    },
    "ui_removed": {"en": "(removed in Godot 4)", "ko": "(Godot 4에서 제거됨)", "zh": "（Godot 4 中已移除）",
                   "ru": "(удалено в Godot 4)"},
    "ui_by_hand": {"en": "(no one-line replacement: see the docs)", "ko": "(한 줄 대체 없음: 문서 참고)",
                   "zh": "（没有一行的替换：见文档）", "ru": "(замены в одну строку нет: см. документацию)"},
    "ui_files": {
        "en": "#### Files ({n})\n\n| file | verdict | migration items | chunks (see the trace) |",
        "ko": "#### 파일 ({n})\n\n| 파일 | 판정 | 변경 항목 | 청크 (추적 보기) |",
        "zh": "#### 文件（{n}）\n\n| 文件 | 结论 | 迁移项 | 代码块（见跟踪） |",
        "ru": "#### Файлы ({n})\n\n| файл | вердикт | изменения | фрагменты (см. трассировку) |",
    },
    "ui_file_godot3": {"en": "Godot 3: needs work", "ko": "Godot 3: 수정 필요", "zh": "Godot 3：需要修改",
                       "ru": "Godot 3: нужна доработка"},
    "ui_file_godot4": {"en": "Godot 4", "ko": "Godot 4", "zh": "Godot 4", "ru": "Godot 4"},
    "ui_file_mixed": {"en": "mixed: needs work", "ko": "혼합: 수정 필요", "zh": "混合：需要修改",
                      "ru": "смешанный: нужна доработка"},
    "ui_file_neutral": {"en": "no version signal", "ko": "버전 신호 없음", "zh": "无版本信号", "ru": "нет признаков версии"},
    "ui_file_pending": {"en": "not judged yet", "ko": "아직 판정 안 됨", "zh": "尚未判定", "ru": "ещё не оценён"},
    "ui_flagged": {"en": "flagged", "ko": "표시됨", "zh": "已标记", "ru": "помечены"},
    "ui_excluded": {
        "en": "#### Excluded files ({n})\n\n| file | reason |",
        "ko": "#### 제외된 파일 ({n})\n\n| 파일 | 이유 |",
        "zh": "#### 排除的文件（{n}）\n\n| 文件 | 原因 |",
        "ru": "#### Исключённые файлы ({n})\n\n| файл | причина |",
    },
    "ui_sources": {"en": "#### Sources", "ko": "#### 출처", "zh": "#### 来源", "ru": "#### Источники"},
    "ui_decided": {
        "en": "How godot-rag decided (known code patterns it compares against, not docs): {patterns}",
        "ko": "godot-rag의 판단 근거 (비교하는 알려진 코드 패턴, 문서 아님): {patterns}",
        "zh": "godot-rag 的判断依据（用来比对的已知代码模式，不是文档）：{patterns}",
        "ru": "Как решал godot-rag (известные шаблоны кода для сравнения, не документация): {patterns}",
    },
    "ui_godot4_version": {
        "en": "**Godot 4 version:** {line}. The patch and the migrated project are attached below.",
        "ko": "**Godot 4 버전:** {line}. 패치와 변환된 프로젝트가 아래에 첨부되어 있습니다.",
        "zh": "**Godot 4 版本：**{line}。补丁和迁移后的项目附在下面。",
        "ru": "**Версия для Godot 4:** {line}. Патч и перенесённый проект приложены ниже.",
    },
    "partial_evidence": {
        "en": "Evidence is still partial: {embedded} of {total} knowledge-base entries embedded "
              "(API and keyword matches are complete; the meaning search is still filling in).",
        "ko": "근거가 아직 일부뿐입니다: 지식 베이스 항목 {total}개 중 {embedded}개가 임베딩되었습니다 "
              "(API·키워드 검색은 완전하고, 의미 검색은 아직 채우는 중입니다).",
        "zh": "证据仍不完整：知识库 {total} 条中已嵌入 {embedded} 条（API 与关键词匹配已完整，语义检索仍在补充）。",
        "ru": "Данные пока неполные: встроено {embedded} из {total} записей базы знаний "
              "(поиск по API и ключевым словам полный, смысловой поиск ещё заполняется).",
    },
    "migration_written": {
        "en": "**Godot 4 version:** {line}. Get it as a patch or a migrated copy (attached in the chat; "
              "`godot-rag migrate SOURCE --out DIR` on the command line).",
        "ko": "**Godot 4 버전:** {line}. 패치나 변환된 사본으로 받으세요 (채팅에는 첨부됨, 명령줄에서는 "
              "`godot-rag migrate SOURCE --out DIR`).",
        "zh": "**Godot 4 版本：**{line}。可作为补丁或迁移后的副本获取（聊天中已附上；命令行用 "
              "`godot-rag migrate SOURCE --out DIR`）。",
        "ru": "**Версия для Godot 4:** {line}. Её можно получить патчем или перенесённой копией (в чате приложены; "
              "в командной строке — `godot-rag migrate SOURCE --out DIR`).",
    },
    "migration_line": {
        "en": "{files} file(s) changed, {edits} edit(s), {todos} TODO(s); {complete}/{flagged} flagged part(s) "
              "written completely and validated",
        "ko": "파일 {files}개 변경, 수정 {edits}곳, TODO {todos}개; 표시된 부분 {flagged}개 중 {complete}개를 "
              "완전히 작성하고 검증함",
        "zh": "修改了 {files} 个文件，{edits} 处编辑，{todos} 个 TODO；{flagged} 个被标记部分中 {complete} 个已完整改写并通过验证",
        "ru": "изменено файлов: {files}, правок: {edits}, TODO: {todos}; {complete} из {flagged} помеченных частей "
              "переписаны полностью и проверены",
    },
    "ui_not_godot": {
        "en": "This does not look like Godot code, so there is nothing to check for Godot 3 or 4 (every piece was "
              "judged `non_godot_noise`). Send GDScript, a `.tscn` scene or `project.godot`, or a GitHub link to a "
              "Godot project.",
        "ko": "Godot 코드로 보이지 않아 Godot 3/4를 확인할 것이 없습니다 (모든 조각이 `non_godot_noise`로 판정됨). "
              "GDScript, `.tscn` 씬, `project.godot` 또는 Godot 프로젝트의 GitHub 링크를 보내 주세요.",
        "zh": "这看起来不是 Godot 代码，因此没有可检查的 Godot 3/4 内容（每一部分都被判定为 `non_godot_noise`）。"
              "请发送 GDScript、`.tscn` 场景、`project.godot` 或 Godot 项目的 GitHub 链接。",
        "ru": "Это не похоже на код Godot, поэтому проверять на Godot 3 или 4 нечего (каждая часть оценена как "
              "`non_godot_noise`). Пришлите GDScript, сцену `.tscn`, `project.godot` или ссылку GitHub на проект Godot.",
    },
    "docs_4": {"en": "Godot 4 docs", "ko": "Godot 4 문서", "zh": "Godot 4 文档", "ru": "документация Godot 4"},
    "docs_34": {"en": "Godot 3.4 docs", "ko": "Godot 3.4 문서", "zh": "Godot 3.4 文档", "ru": "документация Godot 3.4"},
    "src_api_mapping": {"en": "Godot 3 → 4 renames", "ko": "Godot 3 → 4 변경 표", "zh": "Godot 3 → 4 变更表",
                        "ru": "таблица изменений Godot 3 → 4"},
    "line": {"en": "line", "ko": "줄", "zh": "行", "ru": "строка"},
    "no_code": {
        "en": "No complete Godot 4 version could be written mechanically; apply the changes above by hand.",
        "ko": "완전한 Godot 4 버전을 자동으로 만들 수 없었습니다. 위의 변경을 직접 적용하세요.",
        "zh": "无法自动生成完整的 Godot 4 版本；请手动应用上面的修改。",
        "ru": "Полную версию для Godot 4 не удалось получить механически; внесите изменения выше вручную.",
    },
    "reason_godot3": {
        "en": "`{where}` is flagged as Godot 3:",
        "ko": "`{where}`은(는) Godot 3로 표시되었습니다:",
        "zh": "`{where}` 被标记为 Godot 3：",
        "ru": "`{where}` помечен как Godot 3:",
    },
    "reason_godot4": {
        "en": "`{where}` uses Godot 4 only syntax or API: {cues}",
        "ko": "`{where}`은(는) Godot 4 전용 문법/API를 사용합니다: {cues}",
        "zh": "`{where}` 使用了 Godot 4 专有的语法或 API：{cues}",
        "ru": "`{where}` использует синтаксис или API только Godot 4: {cues}",
    },
    "not_flagged": {
        "en": "`{where}` is not flagged: its chunks were judged {signals}, with no Godot 3 API found.",
        "ko": "`{where}`은(는) 표시되지 않았습니다: 청크 판정은 {signals}이며 Godot 3 API가 없습니다.",
        "zh": "`{where}` 没有被标记：其代码块判定为 {signals}，未发现 Godot 3 API。",
        "ru": "`{where}` не помечен: фрагменты оценены как {signals}, API Godot 3 не найдено.",
    },
    "already_godot4": {
        "en": "This code is already valid Godot 4; nothing to convert.",
        "ko": "이 코드는 이미 올바른 Godot 4 코드입니다. 변환할 것이 없습니다.",
        "zh": "这段代码已经是有效的 Godot 4 代码，无需转换。",
        "ru": "Этот код уже корректен для Godot 4; переводить нечего.",
    },
    "which_chunk": {
        "en": "This run has chunks #1 to #{total}; which one do you mean?",
        "ko": "이 실행에는 #1부터 #{total}까지의 청크가 있습니다. 어느 것을 말씀하시나요?",
        "zh": "本次运行包含 #1 到 #{total} 的代码块；你指的是哪一个？",
        "ru": "В этом запуске фрагменты с #1 по #{total}; какой вы имеете в виду?",
    },
    "ask_more": {
        "en": 'Ask about one of them, e.g. "explain chunk 2", "why is `player.gd` flagged?" or "show me the Godot 4 version".',
        "ko": '예: "청크 2 설명해줘", "`player.gd`는 왜 표시됐어?", "Godot 4 버전 보여줘" 처럼 물어보세요.',
        "zh": '可以这样问：“解释第 2 块”、“为什么 `player.gd` 被标记？”或“给我看 Godot 4 版本”。',
        "ru": 'Спросите, например: «объясни фрагмент 2», «почему `player.gd` помечен?» или «покажи версию для Godot 4».',
    },
    "flagged_list": {
        "en": "Flagged chunks: {items}.",
        "ko": "표시된 청크: {items}.",
        "zh": "被标记的代码块：{items}。",
        "ru": "Помеченные фрагменты: {items}.",
    },
    # follow-ups (agent/followup.py): a line asked about, the nearest change, which file
    "empty": {"en": "is empty", "ko": "빈 줄이라", "zh": "是空行", "ru": "пустая"},
    "comment": {"en": "is a comment", "ko": "주석이라", "zh": "是注释", "ru": "это комментарий"},
    "line_blank": {
        "en": "Line {line} of `{path}` {what}, so there is nothing to change on it.",
        "ko": "`{path}`의 {line}행은 {what} 바꿀 것이 없습니다.",
        "zh": "`{path}` 的第 {line} 行{what}，没有需要修改的内容。",
        "ru": "Строка {line} в `{path}` {what} — менять в ней нечего.",
    },
    "past_end": {
        "en": "`{path}` has only {n} lines, so it has no line {line}.",
        "ko": "`{path}`은(는) {n}행까지라 {line}행이 없습니다.",
        "zh": "`{path}` 只有 {n} 行，没有第 {line} 行。",
        "ru": "В `{path}` всего {n} строк, строки {line} нет.",
    },
    "nearest_change": {
        "en": "The nearest change is on line {near}:",
        "ko": "가장 가까운 변경은 {near}행입니다:",
        "zh": "最近的修改在第 {near} 行：",
        "ru": "Ближайшее изменение — в строке {near}:",
    },
    "nearest_code": {
        "en": "`{path}` needs no change for Godot 4; the nearest code is {chunk}:",
        "ko": "`{path}`은(는) Godot 4에서 바꿀 것이 없습니다. 가장 가까운 코드는 {chunk}입니다:",
        "zh": "`{path}` 在 Godot 4 中无需修改；最近的代码是 {chunk}：",
        "ru": "`{path}` для Godot 4 менять не нужно; ближайший код — {chunk}:",
    },
    "which_file_line": {
        "en": "Line {line} could be in {files}; which file do you mean (e.g. \"line {line} of `{first}`\")?",
        "ko": "{line}행은 {files} 중 어느 파일의 줄인가요? (예: \"`{first}` {line}행\")",
        "zh": "第 {line} 行可能在 {files} 中；你指的是哪个文件（例如“`{first}` 第 {line} 行”）？",
        "ru": "Строка {line} может быть в {files}; какой файл вы имеете в виду (например, «`{first}`, строка {line}»)?",
    },
    "which_file": {
        "en": "Several scripts need changes ({files}); which one do you want in Godot 4 "
              "(e.g. \"`{first}` in Godot 4\")?",
        "ko": "바꿔야 할 스크립트가 여러 개입니다 ({files}). 어느 것을 Godot 4로 볼까요? (예: \"`{first}` Godot 4로\")",
        "zh": "有多个脚本需要修改（{files}）；你想看哪一个的 Godot 4 版本（例如“把 `{first}` 转成 Godot 4”）？",
        "ru": "Изменения нужны в нескольких скриптах ({files}); какой показать для Godot 4 "
              "(например, «`{first}` для Godot 4»)?",
    },
    "do_this": {"en": "What to do in Godot 4:", "ko": "Godot 4에서는 이렇게 쓰세요:", "zh": "在 Godot 4 中这样写：",
                "ru": "Что сделать в Godot 4:"},
    "also": {"en": "Also on this line:", "ko": "이 줄의 다른 변경:", "zh": "这一行还有：", "ru": "Ещё в этой строке:"},
}


def phrase(key: str, language: str, **values: object) -> str:
    """The sentence `key` in `language` (English when the language is unknown), filled with `values`."""
    table = _P[key]
    return table.get(language if language in LANGUAGES else "en", table["en"]).format(**values)


def report_language(report: Mapping[str, Any]) -> str:
    """The language a run's reply is written in: its answer's, else its question's, else English."""
    answer = report.get("answer") or {}
    return answer_language(answer.get("language") or (report.get("intent") or {}).get("language"))


def answer_language(language: str | None) -> str:
    """The language to answer in: the question's, or English when it is unknown."""
    return language if language in LANGUAGES else "en"
