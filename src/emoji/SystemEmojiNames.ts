/**
 * Names of common system (Unicode) emoji, as the Mattermost apps spell them: a custom emoji may not take one, or
 * reactions and `:name:` in messages would become ambiguous. Not Mattermost's full table of ~1,800 names, but the
 * names people actually type, reactions included.
 */
const NAMES = `
+1 -1 thumbsup thumbsdown ok_hand clap wave raised_hands pray muscle point_up point_down point_left point_right
fist facepunch punch v metal call_me_hand handshake writing_hand raised_hand hand open_hands palms_up_together
crossed_fingers love_you_gesture middle_finger ear eyes eye nose tongue lips mouth brain
smile smiley grin grinning laughing satisfied joy rofl rolling_on_the_floor_laughing sweat_smile wink blush
innocent slightly_smiling_face upside_down_face relaxed heart_eyes star_struck kissing_heart kissing
kissing_smiling_eyes kissing_closed_eyes yum stuck_out_tongue stuck_out_tongue_winking_eye
stuck_out_tongue_closed_eyes zany_face money_mouth_face hugs hugging_face thinking thinking_face shushing_face
zipper_mouth_face raised_eyebrow neutral_face expressionless no_mouth smirk unamused roll_eyes grimacing lying_face
relieved pensive sleepy drooling_face sleeping mask face_with_thermometer face_with_head_bandage nauseated_face
vomiting_face sneezing_face hot_face cold_face woozy_face dizzy_face exploding_head cowboy_hat_face partying_face
sunglasses nerd_face monocle_face confused worried slightly_frowning_face frowning_face open_mouth hushed astonished
flushed pleading_face frowning anguished fearful cold_sweat disappointed_relieved cry sob scream confounded
persevere disappointed sweat weary tired_face yawning_face triumph rage pout angry cursing_face smiling_imp imp
skull skull_and_crossbones poop hankey shit clown_face japanese_ogre japanese_goblin ghost alien space_invader
robot smiley_cat smile_cat joy_cat heart_eyes_cat smirk_cat kissing_cat scream_cat crying_cat_face pouting_cat
see_no_evil hear_no_evil speak_no_evil kiss love_letter cupid gift_heart sparkling_heart heartpulse heartbeat
revolving_hearts two_hearts heart_decoration heavy_heart_exclamation broken_heart heart red_heart orange_heart
yellow_heart green_heart blue_heart purple_heart brown_heart black_heart white_heart 100 anger boom collision
dizzy sweat_drops dash hole bomb speech_balloon thought_balloon zzz
baby child boy girl adult man woman older_man older_woman cop detective guard construction_worker
santa mrs_claus angel princess prince bride_with_veil man_dancing dancer runner running walking
dog cat mouse hamster rabbit fox_face bear panda_face koala tiger lion cow pig frog monkey_face monkey chicken
penguin bird baby_chick hatching_chick eagle duck owl bat wolf boar horse unicorn bee honeybee bug butterfly snail
turtle snake lizard octopus squid crab lobster shrimp fish tropical_fish dolphin whale whale2 shark crocodile
sunflower rose tulip hibiscus blossom cherry_blossom bouquet seedling evergreen_tree deciduous_tree palm_tree
cactus herb four_leaf_clover maple_leaf fallen_leaf leaves mushroom
apple green_apple pear tangerine lemon banana watermelon grapes strawberry melon cherries peach mango pineapple
coconut kiwi_fruit tomato eggplant avocado broccoli carrot corn hot_pepper potato bread croissant cheese egg bacon
hamburger fries pizza hotdog taco burrito sandwich popcorn salt ramen spaghetti sushi rice curry cake birthday
cupcake pie chocolate_bar candy lollipop doughnut cookie coffee tea beer beers champagne wine_glass cocktail
tropical_drink tumbler_glass milk_glass baby_bottle ice_cream icecream
soccer basketball football baseball tennis volleyball rugby_football 8ball golf trophy medal first_place_medal
second_place_medal third_place_medal sports_medal video_game game_die dart bowling jigsaw chess_pawn
car taxi bus police_car ambulance fire_engine truck bike motorcycle airplane rocket helicopter ship boat
sailboat anchor construction fuel_pump rotating_light traffic_light vertical_traffic_light
house house_with_garden office hospital bank hotel school church mountain volcano camping beach_umbrella
desert_island sunrise sunset city_sunset night_with_stars rainbow
watch iphone calling computer keyboard desktop_computer printer mouse_three_button trackball floppy_disk cd dvd
camera camera_flash video_camera movie_camera tv radio microphone headphones telephone phone telephone_receiver
battery electric_plug bulb flashlight candle moneybag dollar euro pound yen credit_card gem wrench hammer
hammer_and_wrench gear nut_and_bolt link chains lock unlock key old_key scissors pencil pencil2 pen memo
briefcase file_folder open_file_folder calendar date spiral_calendar clipboard pushpin round_pushpin paperclip
straight_ruler triangular_ruler bookmark books book notebook ledger newspaper envelope email e-mail incoming_envelope
inbox_tray outbox_tray package mailbox label shield dagger crossed_swords gun bow_and_arrow pill syringe dna
microscope telescope satellite crystal_ball magnet shopping_cart gift balloon tada confetti_ball sparkler
fireworks ribbon ticket admission_tickets art thread yarn
sunny sun_with_face cloud partly_sunny rain_cloud thunder_cloud_and_rain snowflake snowman snowman_with_snow
zap fire droplet ocean star star2 sparkles stars crescent_moon full_moon new_moon earth_americas earth_africa
earth_asia globe_with_meridians comet umbrella
white_check_mark heavy_check_mark ballot_box_with_check x negative_squared_cross_mark heavy_multiplication_x
heavy_plus_sign heavy_minus_sign heavy_division_sign exclamation question grey_exclamation grey_question
bangbang interrobang warning no_entry no_entry_sign stop_sign sos ok new free up cool top soon back end on
arrow_up arrow_down arrow_left arrow_right arrow_upper_right arrow_lower_right arrow_lower_left arrow_upper_left
arrows_counterclockwise arrows_clockwise repeat twisted_rightwards_arrows leftwards_arrow_with_hook
arrow_right_hook recycle infinity copyright registered tm hash asterisk zero one two three four five six
seven eight nine keycap_ten red_circle large_blue_circle black_circle white_circle large_orange_diamond
large_blue_diamond small_orange_diamond small_blue_diamond white_large_square black_large_square
white_square_button black_square_button radio_button link bell no_bell loudspeaker mega mute speaker sound
loud_sound hourglass hourglass_flowing_sand alarm_clock stopwatch timer_clock clock1 clock2 clock3 clock12
checkered_flag triangular_flag_on_post crossed_flags black_flag white_flag rainbow_flag pirate_flag
flag-us flag-gb flag-fr flag-de flag-es flag-it flag-jp flag-cn flag-kr flag-in flag-br flag-ca flag-ru us gb
fr de es it jp cn kr ru
eyes thinking_face white_check_mark heavy_check_mark raised_hand_with_fingers_splayed vulcan_salute
male_sign female_sign medical_symbol atom_symbol peace_symbol yin_yang
`

export const SYSTEM_EMOJI_NAMES: ReadonlySet<string> = new Set(NAMES.split(/\s+/).filter((n) => n !== ""))
