extends Node

const SAVE_PATH := "user://savegame.json"
const SETTINGS_PATH := "user://settings.cfg"


func save_game(data: Dictionary) -> void:
	var file := FileAccess.open(SAVE_PATH, FileAccess.WRITE)
	if file == null:
		push_error("cannot save: %s" % FileAccess.get_open_error())
		return
	file.store_string(JSON.stringify(data, "\t"))


func load_game() -> Dictionary:
	if not FileAccess.file_exists(SAVE_PATH):
		return {}
	var text := FileAccess.get_file_as_string(SAVE_PATH)
	var parsed = JSON.parse_string(text)
	return parsed if parsed is Dictionary else {}


func list_saves(dir_path: String) -> PackedStringArray:
	var out := PackedStringArray()
	var dir := DirAccess.open(dir_path)
	if dir == null:
		return out
	for name in dir.get_files():
		if name.ends_with(".json"):
			out.append(name)
	return out


func delete_save(path: String) -> Error:
	return DirAccess.remove_absolute(path)


func save_settings(values: Dictionary) -> void:
	var config := ConfigFile.new()
	for key in values:
		config.set_value("settings", key, values[key])
	config.save(SETTINGS_PATH)


func load_settings() -> Dictionary:
	var config := ConfigFile.new()
	var result := {}
	if config.load(SETTINGS_PATH) != OK:
		return result
	for key in config.get_section_keys("settings"):
		result[key] = config.get_value("settings", key)
	return result


func timestamp() -> String:
	return Time.get_datetime_string_from_system()


func elapsed_ms(since: int) -> int:
	return Time.get_ticks_msec() - since


func write_bytes(path: String, bytes: PackedByteArray) -> void:
	var f := FileAccess.open(path, FileAccess.WRITE)
	f.store_buffer(bytes)
	f.close()


func ensure_dir(path: String) -> void:
	if not DirAccess.dir_exists_absolute(path):
		DirAccess.make_dir_recursive_absolute(path)
